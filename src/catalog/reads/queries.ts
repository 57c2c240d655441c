// Every read of the catalogue: keyed queries that take a batch of ids and
// return the rows for all of them in one statement, and the page queries.
// Loaders batch one request's keys into the keyed queries, and concurrent
// requests' batches of the same query share one statement
// (src/db/reads/coalesced-reads.ts); nothing else reads the catalogue tables.
//
// Reads use plain `pg` with named prepared statements rather than Prisma, not
// even Prisma TypedSQL ($queryRawTyped: the same hand-written SQL, types from
// Prisma), which costs the product page's keyed read far more than the 10% the
// project accepts for a convention (docs/architecture.md, measured by
// `node scripts/typedsql-vs-pg.ts`). Prisma's pg adapter sends every statement unnamed,
// so Postgres parses and plans it each time, where here each statement is
// parsed and planned once per connection. Keys go in as
// one array parameter (`= ANY($1)`), so one prepared statement serves every
// batch size and no batch can approach the bind-parameter limit. Writes are
// named statements too (src/catalog/writes/write-statements.ts, run by service.ts
// in transactions on the primary's pool). Which server answers (the primary or a read
// replica) is up to `Reads` (src/db/reads/read-routes.ts).
import type pg from 'pg';
import { CoalescedReads, type CoalescingObserver, type KeyedStatement } from '../../db/reads/coalesced-reads.ts';
import type { StatementCounter } from '../../db/pool/pool.ts';
import type { Reads } from '../../db/reads/read-routes.ts';
import type { Feature, PhotoRow, Product, Related, SkuRow, Style } from '../model/types.ts';
import { type PageKey, type PageRow, pageParameters } from './nested-pages.ts';

/** A product with its features as one statement read them. */
export type ProductWithFeatures = Product & { features: Feature[] };
/** A product with everything its page shows, as one statement read it. */
export type ProductPage = Product & Required<Pick<Product, 'styles' | 'features' | 'relatedIds'>>;
import { PHOTO_FIELDS, selectList, SKU_FIELDS, STYLE_FIELDS } from '../model/style-shape.ts';

export type { Feature, Photo, PhotoRow, Product, Related, Sku, SkuRow, Style } from '../model/types.ts';

/**
 * A product's columns as every statement returns them (reads here, the
 * writes' results in write-statements.ts): price and version as text, as
 * they go out on the wire.
 */
export const productColumns = (table = '') =>
  `${table}id, ${table}name, ${table}slogan, ${table}description, ${table}category, ${table}default_price::text AS "defaultPrice", ${table}created_at AS "createdAt", ${table}updated_at AS "updatedAt", ${table}version::text AS version`;
const PRODUCT_COLUMNS = productColumns();
const STYLE_COLUMNS = selectList(STYLE_FIELDS, 's.');

/** Products' styles with photos and skus, from the per-product read model (no row for an unknown product). */
const STYLES_OF_PRODUCTS = `coalesce(d.styles, '[]'::json) AS styles
    FROM products p LEFT JOIN product_style_documents d ON d.product_id = p.id
    WHERE p.id = ANY($1::int[])`;

/** A keyed statement: its text, with `$1` the int[] of keys, and the key of each row it returns. */
const keyed = <Row>(text: string, keyOf: (row: Row) => number): KeyedStatement<Row> => ({ text, keyOf });
const byId = (row: { id: number }) => row.id;
const byProductId = (row: { productId: number }) => row.productId;
const byStyleId = (row: { styleId: number }) => row.styleId;

/** Reads by a batch of keys: what loaders call, merged across concurrent requests (coalesced-reads.ts). */
export const KEYED = {
  productsByIds: keyed<Product>(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE id = ANY($1::int[])`, byId),
  featuresByProductIds: keyed<Feature>(`SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1::int[]) ORDER BY id`, byProductId),
  stylesByProductIds: keyed<Style>(`SELECT ${STYLE_COLUMNS} FROM styles s WHERE s.product_id = ANY($1::int[]) ORDER BY s.id`, byProductId),
  // Styles with their photos and skus, from the per-product read model
  // (product_style_documents, kept in sync by triggers: prisma/functions).
  styleDocumentsByProductIds: keyed<{ productId: number; styles: Style[] }>(
    `SELECT product_id AS "productId", styles FROM product_style_documents WHERE product_id = ANY($1::int[])`, byProductId),
  // A product page in one round trip: the product, its styles, their photos and skus.
  productsWithStylesByIds: keyed<Product & Required<Pick<Product, 'styles'>>>(`
    SELECT ${productColumns('p.')}, ${STYLES_OF_PRODUCTS}`, byId),
  // The same styles without the product's own columns (the REST styles answer
  // shows none): a row per existing product, so an unknown id has none.
  productStylesByIds: keyed<{ id: number; styles: Style[] }>(`SELECT p.id, ${STYLES_OF_PRODUCTS}`, byId),
  // A product with its features, read in one statement: one snapshot, so the
  // version (the REST ETag) always belongs to the features beside it. The
  // features come from the per-product read model (product_detail_documents,
  // kept in sync by triggers: prisma/functions).
  productsWithFeaturesByIds: keyed<ProductWithFeatures>(`
    SELECT ${productColumns('p.')}, coalesce(dd.features, '[]'::json) AS features
    FROM products p LEFT JOIN product_detail_documents dd ON dd.product_id = p.id
    WHERE p.id = ANY($1::int[])`, byId),
  // A whole product page in one round trip (what a shop's product page asks
  // GraphQL for): the product, its features, its styles with photos and skus,
  // and its related ids in row order, duplicates kept; three primary-key reads.
  productPagesByIds: keyed<ProductPage>(`
    SELECT ${productColumns('p.')}, coalesce(d.styles, '[]'::json) AS styles,
      coalesce(dd.features, '[]'::json) AS features, coalesce(dd.related_ids, '{}') AS "relatedIds"
    FROM products p LEFT JOIN product_style_documents d ON d.product_id = p.id
      LEFT JOIN product_detail_documents dd ON dd.product_id = p.id
    WHERE p.id = ANY($1::int[])`, byId),
  // A style by its own id (a federation reference to a Style, src/graphql/federation/).
  stylesByIds: keyed<Style>(`SELECT ${STYLE_COLUMNS} FROM styles s WHERE s.id = ANY($1::int[])`, byId),
  photosByStyleIds: keyed<PhotoRow>(`SELECT style_id AS "styleId", ${selectList(PHOTO_FIELDS)} FROM photos WHERE style_id = ANY($1::int[]) ORDER BY id`, byStyleId),
  skusByStyleIds: keyed<SkuRow>(`SELECT style_id AS "styleId", ${selectList(SKU_FIELDS)} FROM skus WHERE style_id = ANY($1::int[]) ORDER BY id`, byStyleId),
  relatedByProductIds: keyed<Related>(
    `SELECT current_product_id AS "currentProductId", related_product_id AS "relatedProductId" FROM related WHERE current_product_id = ANY($1::int[]) ORDER BY id`,
    (row) => row.currentProductId),
} as const;

/**
 * What tells whether products were created or deleted since the listing
 * anchors were built (listing-anchors.ts), without reading them: the table's identity (a
 * reload swaps it) and Postgres's cumulative insert and delete counts for it.
 * Null where those counts say nothing: statistics off (track_counts), or a
 * replica (replay is not counted there).
 */
const PRODUCTS_CHANGE_SIGNATURE = `
  SELECT CASE WHEN current_setting('track_counts')::bool AND NOT pg_is_in_recovery()
    THEN c.oid::text || ':' || coalesce(s.n_tup_ins, 0) || ':' || coalesce(s.n_tup_del, 0) END AS signature
  FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
  WHERE c.oid = 'products'::regclass`;

/** Reads of pages: one request's each. */
const STATEMENTS = {
  // Legacy pages seek from an anchor id (see listing-anchors.ts), so OFFSET stays below the anchor spacing.
  productPageFrom: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id >= $1 ORDER BY id OFFSET $2 LIMIT $3`,
  // Every ANCHOR_SPACING-th product id, in order: an index-only scan of the
  // primary key; each row carries the change signature read with them.
  pageAnchors: `
    SELECT ranked.id, sig.signature FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS position FROM products) ranked
    CROSS JOIN (${PRODUCTS_CHANGE_SIGNATURE}) sig
    WHERE ranked.position % $1 = 0 ORDER BY ranked.id`,
  productsAfter: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id > $1 ORDER BY id LIMIT $2`,
  productsChangeSignature: PRODUCTS_CHANGE_SIGNATURE,
} as const;

/**
 * Pages of many products' styles or related products in one statement
 * (nested-pages.ts says how): $1 the product ids, $2 each page's `first`
 * (null: all), $3 each page's `after` (null: from the start); every row
 * carries the 1-based position of its key as "pageKey".
 */
const NESTED_PAGE_KEYS = 'unnest($1::int[], $2::int[], $3::int[]) WITH ORDINALITY AS k(product_id, first, after, n)';
export const NESTED_PAGES = {
  stylePages: `
    SELECT k.n::int AS "pageKey", page.*
    FROM ${NESTED_PAGE_KEYS}
    CROSS JOIN LATERAL (
      SELECT ${STYLE_COLUMNS} FROM styles s
      WHERE s.product_id = k.product_id AND (k.after IS NULL OR s.id > k.after)
      ORDER BY s.id LIMIT k.first
    ) page
    ORDER BY k.n, page.id`,
  // Related products, each where its first related row is, existing ones only
  // (what the unpaged `related` shows); `after` is a related product's id.
  relatedPages: `
    SELECT k.n::int AS "pageKey", ${productColumns('page.')}
    FROM ${NESTED_PAGE_KEYS}
    CROSS JOIN LATERAL (
      SELECT p.*, r.position FROM (
        SELECT related_product_id, min(id) AS position FROM related
        WHERE current_product_id = k.product_id GROUP BY related_product_id
      ) r
      JOIN products p ON p.id = r.related_product_id
      WHERE k.after IS NULL OR r.position > (
        SELECT min(id) FROM related WHERE current_product_id = k.product_id AND related_product_id = k.after)
      ORDER BY r.position LIMIT k.first
    ) page
    ORDER BY k.n, page.position`,
} as const;

/** What each nested page statement's rows are, besides their key. */
interface NestedPageRows {
  stylePages: Style;
  relatedPages: Product;
}

type StatementName = keyof typeof STATEMENTS;
type NestedPageName = keyof typeof NESTED_PAGES;
type KeyedName = keyof typeof KEYED;
/** The row type of a keyed statement. */
type RowOf<N extends KeyedName> = (typeof KEYED)[N] extends KeyedStatement<infer Row> ? Row : never;

export class CatalogQueries {
  private readonly reads: Reads;
  private readonly coalesced: CoalescedReads;

  /**
   * Every read goes where `reads` routes it; the keyed ones are merged across
   * requests, each request's share counted by `statements`.
   */
  constructor(reads: Reads, statements: StatementCounter, observeCoalescing?: CoalescingObserver) {
    this.reads = reads;
    this.coalesced = new CoalescedReads(reads, statements, observeCoalescing);
  }

  private keyed<N extends KeyedName>(name: N, keys: readonly number[]): Promise<RowOf<N>[]> {
    return this.coalesced.read(name, KEYED[name] as KeyedStatement<RowOf<N>>, keys);
  }

  private async run<T extends pg.QueryResultRow>(name: StatementName | NestedPageName, values: unknown[]): Promise<T[]> {
    const route = await this.reads.route();
    const text = name in STATEMENTS ? STATEMENTS[name as StatementName] : NESTED_PAGES[name as NestedPageName];
    return route.run(async (client) => (await client.query<T>({ name, text, values })).rows);
  }

  productsByIds(ids: readonly number[]): Promise<Product[]> {
    return this.keyed('productsByIds', ids);
  }

  productsWithStylesByIds(ids: readonly number[]): Promise<(Product & Required<Pick<Product, 'styles'>>)[]> {
    return this.keyed('productsWithStylesByIds', ids);
  }

  /** Each existing product's styles (photos and skus embedded), without its own columns. */
  productStylesByIds(ids: readonly number[]): Promise<{ id: number; styles: Style[] }[]> {
    return this.keyed('productStylesByIds', ids);
  }

  productsWithFeaturesByIds(ids: readonly number[]): Promise<ProductWithFeatures[]> {
    return this.keyed('productsWithFeaturesByIds', ids);
  }

  /** Products with their features, styles (photos and skus embedded) and related ids, in one statement. */
  productPagesByIds(ids: readonly number[]): Promise<ProductPage[]> {
    return this.keyed('productPagesByIds', ids);
  }

  featuresByProductIds(ids: readonly number[]): Promise<Feature[]> {
    return this.keyed('featuresByProductIds', ids);
  }

  stylesByProductIds(ids: readonly number[]): Promise<Style[]> {
    return this.keyed('stylesByProductIds', ids);
  }

  /** Each product's styles with photos and skus embedded; products without styles have no row. */
  styleDocumentsByProductIds(ids: readonly number[]): Promise<{ productId: number; styles: Style[] }[]> {
    return this.keyed('styleDocumentsByProductIds', ids);
  }

  photosByStyleIds(ids: readonly number[]): Promise<PhotoRow[]> {
    return this.keyed('photosByStyleIds', ids);
  }

  skusByStyleIds(ids: readonly number[]): Promise<SkuRow[]> {
    return this.keyed('skusByStyleIds', ids);
  }

  relatedByProductIds(ids: readonly number[]): Promise<Related[]> {
    return this.keyed('relatedByProductIds', ids);
  }

  /** `count` products in id order, skipping `skip` from the first id >= `fromId`. */
  productPageFrom(fromId: number, skip: number, count: number): Promise<Product[]> {
    return this.run('productPageFrom', [fromId, skip, count]);
  }

  /** A value that moves when products are created or deleted (within Postgres's statistics delay); undefined when it cannot say. */
  async productsChangeSignature(): Promise<string | undefined> {
    const [row] = await this.run<{ signature: string | null }>('productsChangeSignature', []);
    return row?.signature ?? undefined;
  }

  /** The id at every `spacing`-th position of the catalogue in id order, and the change signature as of reading them (one statement). */
  async pageAnchors(spacing: number): Promise<{ anchors: number[]; signature: string | undefined }> {
    const rows = await this.run<{ id: number; signature: string | null }>('pageAnchors', [spacing]);
    return { anchors: rows.map((row) => row.id), signature: rows[0]?.signature ?? undefined };
  }

  /** Keyset pagination: `first` products with an id above `afterId`. */
  productsAfter(afterId: number, first: number): Promise<Product[]> {
    return this.run('productsAfter', [afterId, first]);
  }

  /** Styles by their own ids. */
  stylesByIds(ids: readonly number[]): Promise<Style[]> {
    return this.keyed('stylesByIds', ids);
  }

  /** Pages of many products' lists, one statement: rows in key order, each with its key's 1-based position. */
  nestedPages<N extends NestedPageName>(name: N, keys: readonly PageKey[]): Promise<PageRow<NestedPageRows[N]>[]> {
    return this.run(name, pageParameters(keys));
  }
}
