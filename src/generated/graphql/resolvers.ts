import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { Product as ProductModel, Feature as FeatureModel, Style as StyleModel, Photo as PhotoModel, Sku as SkuModel } from '../../catalog/model/types.ts';
import type { ProductConnectionModel as ProductConnectionModelModel, SearchConnectionModel as SearchConnectionModelModel } from '../../graphql/browse-models.ts';
import type { ProductChangeEvent as ProductChangeEventModel } from '../../graphql/subscriptions/event.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An ISO-8601 date-time in UTC, e.g. 2021-08-13T14:38:44.509Z. */
  DateTime: { input: Date | string; output: Date | string; }
  /**
   * Money with exactly two decimals, as a string ("140.00"): never a float, so no
   * client ever sees 139.99999. Serialised and parsed as a decimal string.
   */
  Money: { input: string; output: string; }
};

/** Who may cache a result: PUBLIC (any cache, CDNs included) or PRIVATE (the client only). */
export type CacheControlScope =
  /** Only the client's own cache. */
  | 'PRIVATE'
  /** Any cache, including shared ones (CDNs). */
  | 'PUBLIC';

/** Fields of a new product. */
export type CreateProductInput = {
  /** Category (1-255 characters). */
  category: Scalars['String']['input'];
  /** Base price, a decimal string with at most two decimals, from 0 to 99999999.99. */
  defaultPrice: Scalars['Money']['input'];
  /** Description (up to 10000 characters). */
  description: Scalars['String']['input'];
  /** Features, in order. */
  features?: InputMaybe<Array<FeatureInput>>;
  /** Display name (1-255 characters). */
  name: Scalars['String']['input'];
  /** Tag line (up to 1000 characters). */
  slogan: Scalars['String']['input'];
};

/** A facet value and how many products have it. */
export type FacetCount = {
  __typename?: 'FacetCount';
  count: Scalars['Int']['output'];
  value: Scalars['String']['output'];
};

/** A named attribute of a product, e.g. Fabric: Canvas. */
export type Feature = {
  __typename?: 'Feature';
  /** Name of the feature, e.g. Fabric. */
  feature: Scalars['String']['output'];
  /** Its value, e.g. Canvas; null when the feature has no value (e.g. Non-GMO). */
  value?: Maybe<Scalars['String']['output']>;
};

/** A feature to store on a product. */
export type FeatureInput = {
  /** Name of the feature (1-255 characters). */
  feature: Scalars['String']['input'];
  /** Its value, or null. */
  value?: InputMaybe<Scalars['String']['input']>;
};

export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Creates a product, with its features. Returns the new product.
   *
   * With an idempotency key (this argument, or the request's `Idempotency-Key`
   * header), the product is created at most once per key: a retry with the same
   * key and the same input returns the product the first one created, and the
   * same key with a different input fails with IDEMPOTENCY_KEY_REUSED (HTTP 200,
   * beside `data: null`: the request was valid and nothing was created; REST's
   * POST /products answers 422).
   * Keys are remembered for IDEMPOTENCY_KEY_TTL_SECONDS (24 hours by default).
   */
  createProduct: Product;
  /**
   * Deletes a product with its features, styles, photos, skus and related rows.
   * Returns the deleted product's id. Errors as updateProduct.
   */
  deleteProduct: Scalars['ID']['output'];
  /**
   * Changes the given fields of a product; `features`, when given, replaces the
   * list. Errors with NOT_FOUND for an unknown id. Concurrent writes of one
   * product are applied one after the other; one that cannot get its turn within
   * DATABASE_LOCK_TIMEOUT_MS fails with WRITE_CONTENTION (HTTP 503, Retry-After),
   * having written nothing. While the catalogue is being reloaded (data:load),
   * every write fails with CATALOGUE_RELOADING (HTTP 503, Retry-After).
   */
  updateProduct: Product;
};


export type MutationCreateProductArgs = {
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  input: CreateProductInput;
};


export type MutationDeleteProductArgs = {
  expectedVersion?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
};


export type MutationUpdateProductArgs = {
  expectedVersion?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
  input: UpdateProductInput;
};

/** Sort direction. */
export type OrderDirection =
  /** Smallest first. */
  | 'ASC'
  /** Largest first. */
  | 'DESC';

/** Pagination state. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Cursor of the last edge; null for an empty page. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when products exist after `endCursor`. */
  hasNextPage: Scalars['Boolean']['output'];
};

/** A photo of a style. */
export type Photo = {
  __typename?: 'Photo';
  /** Thumbnail image URL. */
  thumbnailUrl: Scalars['String']['output'];
  /** Full-size image URL. */
  url: Scalars['String']['output'];
};

/** A default price band [min, max) and how many products are in it. */
export type PriceBandCount = {
  __typename?: 'PriceBandCount';
  count: Scalars['Int']['output'];
  /** Where the next band starts; null for the last band (no upper bound). */
  max?: Maybe<Scalars['Money']['output']>;
  /** Lowest price in the band. */
  min: Scalars['Money']['output'];
};

/** A product of the catalogue: what the shop sells, in one or more styles. */
export type Product = {
  __typename?: 'Product';
  /** Category, e.g. Jackets. */
  category: Scalars['String']['output'];
  /** When the product was created. */
  createdAt: Scalars['DateTime']['output'];
  /** Base price with two decimals, e.g. "140.00". */
  defaultPrice: Scalars['Money']['output'];
  /** The style marked as default, else the first style, else null. */
  defaultStyle?: Maybe<Style>;
  /** Long description. */
  description: Scalars['String']['output'];
  /** Features in their stored order. */
  features: Array<Feature>;
  /** The product id (the legacy numeric id, as an ID). */
  id: Scalars['ID']['output'];
  /** Display name, e.g. Camo Onesie. */
  name: Scalars['String']['output'];
  /**
   * Related products, in related-row order, without duplicates or missing
   * products. Without arguments, all of them; with `first` and/or `after`, a
   * page: the next page is `after` the last product's `id` (a product no longer
   * related gives an empty page). Paged on every product of a listing, still one statement.
   */
  related: Array<Product>;
  /** Ids of related products as the legacy /related route returns them (duplicates kept). */
  relatedIds: Array<Scalars['ID']['output']>;
  /** One-line tag line. */
  slogan: Scalars['String']['output'];
  /**
   * Styles in style id order; empty when the product has none. Without
   * arguments, all of them; with `first` and/or `after`, a page: the next
   * page is `after` the last style's `id`, and a page shorter than `first`
   * is the last one. Paged on every product of a listing, still one statement.
   */
  styles: Array<Style>;
  /** When the product was last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /**
   * Changes at every write of the product and is never reused (an opaque token:
   * compare it only for equality). Send it back as `expectedVersion` to change
   * the product only if nobody else has since; REST gives the same value as the
   * product's ETag.
   */
  version: Scalars['String']['output'];
};


/** A product of the catalogue: what the shop sells, in one or more styles. */
export type ProductRelatedArgs = {
  after?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A product of the catalogue: what the shop sells, in one or more styles. */
export type ProductStylesArgs = {
  after?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** One product's state, sent when it is subscribed to and whenever it changes. */
export type ProductChange = {
  __typename?: 'ProductChange';
  /** The product's id, as subscribed. */
  id: Scalars['ID']['output'];
  /** The product as it is now; null when there is no product with this id (deleted, or never created). */
  product?: Maybe<Product>;
};

/** A page of products for cursor pagination. */
export type ProductConnection = {
  __typename?: 'ProductConnection';
  /** The products of this page with their cursors. */
  edges: Array<ProductEdge>;
  /** Facet counts of the filter (the same statement as totalCount). */
  facets: ProductFacets;
  /** Where this page ends and whether there is more. */
  pageInfo: PageInfo;
  /** How many products match the filter (exact, from the facet counts; one more statement when selected). */
  totalCount: Scalars['Int']['output'];
};

/** A product and the cursor just after it. */
export type ProductEdge = {
  __typename?: 'ProductEdge';
  /** Opaque cursor: pass it as `after` to continue after this product. */
  cursor: Scalars['String']['output'];
  /** The product. */
  node: Product;
};

/** Facet counts: how many products have each value. */
export type ProductFacets = {
  __typename?: 'ProductFacets';
  /** Per category, most products first. */
  categories: Array<FacetCount>;
  /**
   * True when every count is exact: always for a filter, and for a search when
   * each count is over at most 10,000 matches (and for some searches of one or
   * two common words past that). Otherwise the search has more than 10,000
   * matches and every count is a lower bound, never above the truth ("at
   * least"): over the first 10,000 matches found, or over the products holding
   * the search's commonest word or pair of words.
   */
  exact: Scalars['Boolean']['output'];
  /** Per default price band, cheapest first (every band, zeros included). */
  priceBands: Array<PriceBandCount>;
  /** Per size in stock (a product counts once per size it has in stock), most products first. */
  sizes: Array<FacetCount>;
  /** Products matching the whole filter (and search). */
  total: Scalars['Int']['output'];
};

/** A filter on products: every part given must hold. */
export type ProductFilter = {
  /** In any of these categories (exact names, e.g. Jackets); 1 to 50 entries. */
  categories?: InputMaybe<Array<Scalars['String']['input']>>;
  /** True: some size of some style is in stock; false: nothing is. */
  inStock?: InputMaybe<Scalars['Boolean']['input']>;
  /** True: some style is on sale (has a sale price); false: none is. */
  onSale?: InputMaybe<Scalars['Boolean']['input']>;
  /** Default price at most this (inclusive). */
  priceMax?: InputMaybe<Scalars['Money']['input']>;
  /** Default price at least this (inclusive). */
  priceMin?: InputMaybe<Scalars['Money']['input']>;
  /** At least one of these sizes in stock (e.g. M, 9.5, One Size); 1 to 50 entries. */
  sizes?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** A sort order for products; ties are broken by id in the same direction. */
export type ProductOrder = {
  direction?: OrderDirection;
  field?: ProductOrderField;
};

/** What products are sorted by. */
export type ProductOrderField =
  /** When the product was created. */
  | 'CREATED_AT'
  /** The product id (the default). */
  | 'ID'
  /** Display name (the database's collation). */
  | 'NAME'
  /** Default price. */
  | 'PRICE'
  /** When the product was last changed. */
  | 'UPDATED_AT';

export type Query = {
  __typename?: 'Query';
  /** The product with this id, or null when there is none. */
  product?: Maybe<Product>;
  /**
   * The catalogue, or the products matching `filter`, in `orderBy` order (id
   * ascending by default; ties always broken by id, in the same direction),
   * cursor-paginated. Each page costs the same however deep into the
   * catalogue it is (keyset pagination, not OFFSET). A cursor belongs to its
   * ordering: sent with another `orderBy` it is a 400 naming `after`.
   * Details: docs/browse.md.
   */
  productConnection: ProductConnection;
  /**
   * Counts per category, per size in stock and per price band of the products
   * matching `filter` (and `query`, when given: the search's matches), and the
   * total. Each facet counts what matches every other part of the filter, so a
   * chosen category or size still shows the counts of the others.
   */
  productFacets: ProductFacets;
  /**
   * A page of products in id order, like the legacy `GET /products`: `page` starts at 1,
   * `count` defaults to 5 and is capped by the server's maximum page size.
   */
  products: Array<Product>;
  /** One entry per requested id, in the order given; null for an id with no product. */
  productsByIds: Array<Maybe<Product>>;
  /**
   * Full-text search over name, category, slogan, feature values and
   * description: every result holds every word (the last also as a prefix,
   * a misspelt word corrected to the closest word of the catalogue), ordered
   * by the ranking rules (docs/browse.md, "Ranking"): no correction first,
   * then the name before category before slogan and features before
   * description, the words next to each other in the name, the whole name,
   * the words as typed; ties go to the most popular product (named most often
   * among products' related products), then the lowest id. `query` takes
   * plain words (at most 8, 200 characters); tsquery operators, NUL and
   * control characters are a 400 naming `query`. Only stop words ("the") find
   * nothing.
   */
  search: SearchConnection;
};


export type QueryProductArgs = {
  id: Scalars['ID']['input'];
};


export type QueryProductConnectionArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ProductFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<ProductOrder>;
};


export type QueryProductFacetsArgs = {
  filter?: InputMaybe<ProductFilter>;
  query?: InputMaybe<Scalars['String']['input']>;
};


export type QueryProductsArgs = {
  count?: InputMaybe<Scalars['Int']['input']>;
  page?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryProductsByIdsArgs = {
  ids: Array<Scalars['ID']['input']>;
};


export type QuerySearchArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ProductFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  query: Scalars['String']['input'];
};

/** Search results for cursor pagination, best first. */
export type SearchConnection = {
  __typename?: 'SearchConnection';
  /** The matches of this page with their cursors, ranks and snippets. */
  edges: Array<SearchEdge>;
  /** Facet counts of the matches (the same statement as totalCount). */
  facets: ProductFacets;
  /** Where this page ends and whether there is more. */
  pageInfo: PageInfo;
  /**
   * The query as it was searched, in Postgres tsquery syntax after stemming and
   * typo correction (e.g. 'jacket':* for "jakcet"); null when only stop words were given.
   */
  searched?: Maybe<Scalars['String']['output']>;
  /**
   * How many products match (with the facets, one more statement when
   * selected): exact up to 10,000; past that, exact or a lower bound of at
   * least 10,000 (then facets.exact is false).
   */
  totalCount: Scalars['Int']['output'];
};

/** A search match and the cursor just after it. */
export type SearchEdge = {
  __typename?: 'SearchEdge';
  /** Opaque cursor: pass it as `after` to the same search to continue after this match. */
  cursor: Scalars['String']['output'];
  /** The product. */
  node: Product;
  /**
   * Where the ranking rules put this match, from 1 (the whole name, as typed)
   * down: results in the same class of every rule have the same rank, and a
   * higher rank always comes first (docs/browse.md, "Ranking").
   */
  rank: Scalars['Float']['output'];
  /**
   * Where it matched: a fragment of the product's text with the matched words
   * between « and » (plain text, not HTML-escaped).
   */
  snippet: Scalars['String']['output'];
};

/** A size of a style and how many are in stock. */
export type Sku = {
  __typename?: 'Sku';
  /** The sku id. */
  id: Scalars['ID']['output'];
  /** Units in stock. */
  quantity: Scalars['Int']['output'];
  /** Size label, e.g. XS, XL, One Size, 7.5. */
  size: Scalars['String']['output'];
};

/** A variant of a product (a colourway), with its photos and stock. */
export type Style = {
  __typename?: 'Style';
  /** The style id. */
  id: Scalars['ID']['output'];
  /** True for the product's default style. */
  isDefault: Scalars['Boolean']['output'];
  /** Display name, e.g. Forest Green & Black. */
  name: Scalars['String']['output'];
  /** Price before any sale, two decimals. */
  originalPrice: Scalars['Money']['output'];
  /** Photos in photo id order; empty when there are none. */
  photos: Array<Photo>;
  /** The product this style belongs to. */
  product: Product;
  /** Sale price, two decimals; null when the style is not on sale. */
  salePrice?: Maybe<Scalars['Money']['output']>;
  /** Stock keeping units in sku id order; empty when there are none. Sizes may repeat. */
  skus: Array<Sku>;
};

/**
 * Live updates, pushed over graphql-ws (the WebSocket upgrade of /graphql, what
 * Apollo Client's GraphQLWsLink speaks) or GraphQL over Server-Sent Events
 * (/graphql/stream). How they are served, limited and measured: docs/subscriptions.md.
 */
export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The products with these ids, as they change: first each id's current
   * state (so a page that subscribes after its query misses nothing), then an
   * event each time a committed write changes one of them (its fields,
   * features, styles, photos, skus or related ids), whoever made it: this API,
   * another instance, the sidecar's sync, SQL by hand or a catalogue reload.
   * Under load a subscriber may skip intermediate states, never the latest.
   * At most the server's LIVE_MAX_IDS ids (100 by default).
   */
  productChanged: ProductChange;
};


/**
 * Live updates, pushed over graphql-ws (the WebSocket upgrade of /graphql, what
 * Apollo Client's GraphQLWsLink speaks) or GraphQL over Server-Sent Events
 * (/graphql/stream). How they are served, limited and measured: docs/subscriptions.md.
 */
export type SubscriptionProductChangedArgs = {
  ids: Array<Scalars['ID']['input']>;
};

/** Fields to change on a product; omitted fields stay as they are. */
export type UpdateProductInput = {
  /** Category (1-255 characters). */
  category?: InputMaybe<Scalars['String']['input']>;
  /** Base price, a decimal string with at most two decimals. */
  defaultPrice?: InputMaybe<Scalars['Money']['input']>;
  /** Description (up to 10000 characters). */
  description?: InputMaybe<Scalars['String']['input']>;
  /** When given, replaces all features of the product. */
  features?: InputMaybe<Array<FeatureInput>>;
  /** Display name (1-255 characters). */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Tag line (up to 1000 characters). */
  slogan?: InputMaybe<Scalars['String']['input']>;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  CacheControlScope: CacheControlScope;
  CreateProductInput: CreateProductInput;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  FacetCount: ResolverTypeWrapper<FacetCount>;
  Feature: ResolverTypeWrapper<FeatureModel>;
  FeatureInput: FeatureInput;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Money: ResolverTypeWrapper<Scalars['Money']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  OrderDirection: OrderDirection;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Photo: ResolverTypeWrapper<PhotoModel>;
  PriceBandCount: ResolverTypeWrapper<PriceBandCount>;
  Product: ResolverTypeWrapper<ProductModel>;
  ProductChange: ResolverTypeWrapper<ProductChangeEventModel>;
  ProductConnection: ResolverTypeWrapper<ProductConnectionModelModel>;
  ProductEdge: ResolverTypeWrapper<Omit<ProductEdge, 'node'> & { node: ResolversTypes['Product'] }>;
  ProductFacets: ResolverTypeWrapper<ProductFacets>;
  ProductFilter: ProductFilter;
  ProductOrder: ProductOrder;
  ProductOrderField: ProductOrderField;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  SearchConnection: ResolverTypeWrapper<SearchConnectionModelModel>;
  SearchEdge: ResolverTypeWrapper<Omit<SearchEdge, 'node'> & { node: ResolversTypes['Product'] }>;
  Sku: ResolverTypeWrapper<SkuModel>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Style: ResolverTypeWrapper<StyleModel>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UpdateProductInput: UpdateProductInput;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Boolean: Scalars['Boolean']['output'];
  CreateProductInput: CreateProductInput;
  DateTime: Scalars['DateTime']['output'];
  FacetCount: FacetCount;
  Feature: FeatureModel;
  FeatureInput: FeatureInput;
  Float: Scalars['Float']['output'];
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  Money: Scalars['Money']['output'];
  Mutation: Record<PropertyKey, never>;
  PageInfo: PageInfo;
  Photo: PhotoModel;
  PriceBandCount: PriceBandCount;
  Product: ProductModel;
  ProductChange: ProductChangeEventModel;
  ProductConnection: ProductConnectionModelModel;
  ProductEdge: Omit<ProductEdge, 'node'> & { node: ResolversParentTypes['Product'] };
  ProductFacets: ProductFacets;
  ProductFilter: ProductFilter;
  ProductOrder: ProductOrder;
  Query: Record<PropertyKey, never>;
  SearchConnection: SearchConnectionModelModel;
  SearchEdge: Omit<SearchEdge, 'node'> & { node: ResolversParentTypes['Product'] };
  Sku: SkuModel;
  String: Scalars['String']['output'];
  Style: StyleModel;
  Subscription: Record<PropertyKey, never>;
  UpdateProductInput: UpdateProductInput;
};

export type CacheControlDirectiveArgs = {
  inheritMaxAge?: Maybe<Scalars['Boolean']['input']>;
  maxAge?: Maybe<Scalars['Int']['input']>;
  scope?: Maybe<CacheControlScope>;
};

export type CacheControlDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = CacheControlDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type FacetCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FacetCount'] = ResolversParentTypes['FacetCount']> = {
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type FeatureResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Feature'] = ResolversParentTypes['Feature']> = {
  feature?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export interface MoneyScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Money'], any> {
  name: 'Money';
}

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  createProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationCreateProductArgs, 'input'>>;
  deleteProduct?: Resolver<ResolversTypes['ID'], ParentType, ContextType, RequireFields<MutationDeleteProductArgs, 'id'>>;
  updateProduct?: Resolver<ResolversTypes['Product'], ParentType, ContextType, RequireFields<MutationUpdateProductArgs, 'id' | 'input'>>;
};

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type PhotoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Photo'] = ResolversParentTypes['Photo']> = {
  thumbnailUrl?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type PriceBandCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PriceBandCount'] = ResolversParentTypes['PriceBandCount']> = {
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  max?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  min?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
};

export type ProductResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Product'] = ResolversParentTypes['Product']> = {
  category?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  defaultPrice?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  defaultStyle?: Resolver<Maybe<ResolversTypes['Style']>, ParentType, ContextType>;
  description?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  features?: Resolver<Array<ResolversTypes['Feature']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  related?: Resolver<Array<ResolversTypes['Product']>, ParentType, ContextType, Partial<ProductRelatedArgs>>;
  relatedIds?: Resolver<Array<ResolversTypes['ID']>, ParentType, ContextType>;
  slogan?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  styles?: Resolver<Array<ResolversTypes['Style']>, ParentType, ContextType, Partial<ProductStylesArgs>>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  version?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ProductChangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ProductChange'] = ResolversParentTypes['ProductChange']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  product?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType>;
};

export type ProductConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ProductConnection'] = ResolversParentTypes['ProductConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ProductEdge']>, ParentType, ContextType>;
  facets?: Resolver<ResolversTypes['ProductFacets'], ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ProductEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ProductEdge'] = ResolversParentTypes['ProductEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Product'], ParentType, ContextType>;
};

export type ProductFacetsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ProductFacets'] = ResolversParentTypes['ProductFacets']> = {
  categories?: Resolver<Array<ResolversTypes['FacetCount']>, ParentType, ContextType>;
  exact?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  priceBands?: Resolver<Array<ResolversTypes['PriceBandCount']>, ParentType, ContextType>;
  sizes?: Resolver<Array<ResolversTypes['FacetCount']>, ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  product?: Resolver<Maybe<ResolversTypes['Product']>, ParentType, ContextType, RequireFields<QueryProductArgs, 'id'>>;
  productConnection?: Resolver<ResolversTypes['ProductConnection'], ParentType, ContextType, RequireFields<QueryProductConnectionArgs, 'first' | 'orderBy'>>;
  productFacets?: Resolver<ResolversTypes['ProductFacets'], ParentType, ContextType, Partial<QueryProductFacetsArgs>>;
  products?: Resolver<Array<ResolversTypes['Product']>, ParentType, ContextType, RequireFields<QueryProductsArgs, 'count' | 'page'>>;
  productsByIds?: Resolver<Array<Maybe<ResolversTypes['Product']>>, ParentType, ContextType, RequireFields<QueryProductsByIdsArgs, 'ids'>>;
  search?: Resolver<ResolversTypes['SearchConnection'], ParentType, ContextType, RequireFields<QuerySearchArgs, 'first' | 'query'>>;
};

export type SearchConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SearchConnection'] = ResolversParentTypes['SearchConnection']> = {
  edges?: Resolver<Array<ResolversTypes['SearchEdge']>, ParentType, ContextType>;
  facets?: Resolver<ResolversTypes['ProductFacets'], ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  searched?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type SearchEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SearchEdge'] = ResolversParentTypes['SearchEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Product'], ParentType, ContextType>;
  rank?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  snippet?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type SkuResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Sku'] = ResolversParentTypes['Sku']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  quantity?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  size?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type StyleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Style'] = ResolversParentTypes['Style']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  isDefault?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  originalPrice?: Resolver<ResolversTypes['Money'], ParentType, ContextType>;
  photos?: Resolver<Array<ResolversTypes['Photo']>, ParentType, ContextType>;
  product?: Resolver<ResolversTypes['Product'], ParentType, ContextType>;
  salePrice?: Resolver<Maybe<ResolversTypes['Money']>, ParentType, ContextType>;
  skus?: Resolver<Array<ResolversTypes['Sku']>, ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  productChanged?: SubscriptionResolver<ResolversTypes['ProductChange'], "productChanged", ParentType, ContextType, RequireFields<SubscriptionProductChangedArgs, 'ids'>>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  DateTime?: GraphQLScalarType;
  FacetCount?: FacetCountResolvers<ContextType>;
  Feature?: FeatureResolvers<ContextType>;
  Money?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Photo?: PhotoResolvers<ContextType>;
  PriceBandCount?: PriceBandCountResolvers<ContextType>;
  Product?: ProductResolvers<ContextType>;
  ProductChange?: ProductChangeResolvers<ContextType>;
  ProductConnection?: ProductConnectionResolvers<ContextType>;
  ProductEdge?: ProductEdgeResolvers<ContextType>;
  ProductFacets?: ProductFacetsResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  SearchConnection?: SearchConnectionResolvers<ContextType>;
  SearchEdge?: SearchEdgeResolvers<ContextType>;
  Sku?: SkuResolvers<ContextType>;
  Style?: StyleResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = GraphQLContext> = {
  cacheControl?: CacheControlDirectiveResolver<any, any, ContextType>;
};
