// The GraphQL operations of k6/operations.graphql as Calls, with checks of
// their data. The scripts send the text of that file (read once per VU at init),
// so what is load-tested is what codegen types.
import type {
  ListingWithNestedPagesQuery, ProductCardFragment, ProductDetailPageQuery, ProductListingPageQuery, ProductPageWithRelatedIdsQuery, ProductWithStylesQuery,
  StyleWithStockFragment,
} from '../../src/generated/graphql/operations/graphql.ts';
import type { BodyChecks, Call } from './calls.ts';
import { config } from './config.ts';
import { operationsByName } from './operation-text.ts';
import { ascending, isFullPage, isMoney } from './shapes.ts';
import { REQUESTS } from './targets.ts';

const OPERATIONS = operationsByName(open(import.meta.resolve('../operations.graphql')));

function operation(operationName: string, variables: Record<string, unknown>, dataChecks: BodyChecks): Call {
  const query = OPERATIONS.get(operationName);
  if (query === undefined) throw new Error(`k6/operations.graphql has no operation ${operationName}`);
  const data = (body: unknown) => (body as { data: unknown }).data;
  return {
    name: REQUESTS.graphql(operationName), method: 'POST', url: `${config.baseUrl}/graphql`,
    body: JSON.stringify({ query, variables, operationName }), statuses: [200],
    bodyChecks: () => ({
      'no errors, data present': (b) => (b as { errors?: unknown }).errors === undefined && typeof data(b) === 'object' && data(b) !== null,
      ...Object.fromEntries(Object.entries(dataChecks).map(([name, checker]) => [name, (b: unknown) => checker(data(b))])),
    }),
  };
}

function isStyle(style: StyleWithStockFragment): boolean {
  return isMoney(style.originalPrice) && (style.salePrice === null || isMoney(style.salePrice)) && typeof style.isDefault === 'boolean'
    && style.photos.every((p) => typeof p.url === 'string' && typeof p.thumbnailUrl === 'string')
    && style.skus.every((sku) => typeof sku.size === 'string' && Number.isInteger(sku.quantity));
}

/** A product card of a listing (or of a product page's related products). */
function isCard(card: ProductCardFragment): boolean {
  const style = card.defaultStyle;
  return typeof card.id === 'string' && typeof card.name === 'string' && isMoney(card.defaultPrice)
    && (style === null || (isMoney(style.originalPrice) && (style.salePrice === null || isMoney(style.salePrice)) && Array.isArray(style.photos)));
}

/** product(id) is null for an id in a gap of the range: a correct answer. */
function productOrNull<P extends { id: string } | null>(id: number, product: P, valid: (p: NonNullable<P>) => boolean): boolean {
  return product === null || (product.id === String(id) && valid(product as NonNullable<P>));
}

export function productWithStyles(id: number): Call {
  return operation('ProductWithStyles', { id: String(id) }, {
    'the product asked for (or null), its styles with prices, photos, skus': (d) =>
      productOrNull(id, (d as ProductWithStylesQuery).product, (p) => isMoney(p.defaultPrice) && p.styles.every(isStyle)),
    'styles in id order': (d) => ascending(((d as ProductWithStylesQuery).product?.styles ?? []).map((s) => s.id)),
  });
}

export function productListingPage(page: number, count: number, lastPage: number): Call {
  return operation('ProductListingPage', { page, count }, {
    'a full page, except maybe the last': (d) => isFullPage((d as ProductListingPageQuery).products.length, count, page, lastPage),
    'ids ascend': (d) => ascending((d as ProductListingPageQuery).products.map((p) => p.id)),
    'cards: prices, default style': (d) => (d as ProductListingPageQuery).products.every(isCard),
  });
}

export function productDetailPage(id: number): Call {
  return operation('ProductDetailPage', { id: String(id) }, {
    'the product asked for (or null), features, styles': (d) => productOrNull(id, (d as ProductDetailPageQuery).product, (p) =>
      isMoney(p.defaultPrice) && p.features.every((f) => typeof f.feature === 'string') && p.styles.every(isStyle)),
    'related products as cards': (d) => ((d as ProductDetailPageQuery).product?.related ?? []).every(isCard),
  });
}

/** Styles and related products a listing page of ListingWithNestedPages shows per product. */
export const NESTED_PAGE_SIZES = { styles: 2, related: 3 };

export function listingWithNestedPages(page: number, count: number, lastPage: number): Call {
  const products = (d: unknown) => (d as ListingWithNestedPagesQuery).products;
  return operation('ListingWithNestedPages', { page, count, ...NESTED_PAGE_SIZES }, {
    'a full page, except maybe the last': (d) => isFullPage(products(d).length, count, page, lastPage),
    'ids ascend': (d) => ascending(products(d).map((p) => p.id)),
    'pages of styles and related products, no longer than asked, styles in id order': (d) => products(d).every((p) =>
      p.styles.length <= NESTED_PAGE_SIZES.styles && ascending(p.styles.map((s) => s.id)) && p.styles.every((s) => isMoney(s.originalPrice))
      && p.related.length <= NESTED_PAGE_SIZES.related && p.related.every((r) => isMoney(r.defaultPrice))),
  });
}

export function productPageWithRelatedIds(id: number): Call {
  return operation('ProductPageWithRelatedIds', { id: String(id) }, {
    'the product asked for (or null), features, styles': (d) => productOrNull(id, (d as ProductPageWithRelatedIdsQuery).product, (p) =>
      isMoney(p.defaultPrice) && p.features.every((f) => typeof f.feature === 'string') && p.styles.every(isStyle)),
    'related ids are ids': (d) => ((d as ProductPageWithRelatedIdsQuery).product?.relatedIds ?? []).every((r) => /^\d+$/.test(r)),
  });
}
