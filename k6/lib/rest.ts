// The legacy REST routes as Calls, with checks of the shapes in
// ../shared/legacy-api.md (section 1): closed objects, string prices with two
// decimals, string product_id, "default?", skus keyed by sku id, 404 bodies.
import type { Call, BodyChecks, HeaderChecks } from './calls.ts';
import { config, requireApiKey } from './config.ts';
import { ETAG, etagVersion } from './etag.ts';
import type { ProductUpdate } from './product-update.ts';
import { ascending, hasExactKeys, isFullPage, isIsoDate, isMoney, isPositiveInteger, isStringOrNull } from './shapes.ts';
import { REQUESTS } from './targets.ts';

const LIST_ITEM_KEYS = ['id', 'campus', 'name', 'slogan', 'description', 'category', 'default_price', 'created_at', 'updated_at'] as const;
const STYLE_KEYS = ['style_id', 'name', 'original_price', 'sale_price', 'default?', 'photos', 'skus'] as const;

interface ListItem { id: number; name: string; slogan: string; description: string; category: string; campus: string; default_price: string; created_at: string; updated_at: string }
interface Product extends ListItem { features: { feature: string; value: string | null }[] }
interface Style {
  style_id: number; name: string; original_price: string; sale_price: string | null; 'default?': boolean;
  photos: { thumbnail_url: string | null; url: string | null }[];
  skus: Record<string, { quantity: number | null; size: string | null }>;
}

function isListItem(item: ListItem): boolean {
  return isPositiveInteger(item.id) && isMoney(item.default_price) && isIsoDate(item.created_at) && isIsoDate(item.updated_at)
    && [item.campus, item.name, item.slogan, item.description, item.category].every((field) => typeof field === 'string');
}

function isStyle(style: Style): boolean {
  return hasExactKeys(style, STYLE_KEYS) && isPositiveInteger(style.style_id) && typeof style.name === 'string' && typeof style['default?'] === 'boolean'
    && isMoney(style.original_price) && (style.sale_price === null || isMoney(style.sale_price))
    && style.photos.every((p) => hasExactKeys(p, ['thumbnail_url', 'url']) && isStringOrNull(p.url) && isStringOrNull(p.thumbnail_url))
    // Keyed by sku id. A style without photos or skus has the legacy null placeholders
    // (a "null" key), or [] and {} with LEGACY_EMPTY_PLACEHOLDERS=off: both are accepted.
    && Object.entries(style.skus).every(([key, sku]) => /^(\d+|null)$/.test(key) && hasExactKeys(sku, ['quantity', 'size'])
      && (sku.quantity === null || Number.isInteger(sku.quantity)) && isStringOrNull(sku.size));
}

/** An unknown id (a gap in the id range) is a correct answer too: 404 with the legacy error body. */
function notFoundChecks(id: number): BodyChecks {
  return { '404 says which product': (b) => hasExactKeys(b, ['error']) && (b as { error: string }).error === `product ${id} not found` };
}

function byId(name: string, path: string, id: number, found: BodyChecks): Call {
  return {
    name, method: 'GET', url: `${config.baseUrl}${path}`, statuses: [200, 404],
    bodyChecks: (status) => (status === 200 ? found : notFoundChecks(id)),
  };
}

/** GET /products?page=P&count=N; `lastPage` lets the last page be short. */
export function productsPage(page: number, count: number, lastPage: number): Call {
  return {
    name: REQUESTS.productsPage(count), method: 'GET', url: `${config.baseUrl}/products?page=${page}&count=${count}`, statuses: [200],
    bodyChecks: () => ({
      'a full page, except maybe the last': (b) => isFullPage((b as ListItem[]).length, count, page, lastPage),
      'list items: exactly the legacy fields (no features)': (b) => (b as ListItem[]).every((item) => hasExactKeys(item, LIST_ITEM_KEYS) && isListItem(item)),
      'ids ascend': (b) => ascending((b as ListItem[]).map((item) => item.id)),
    }),
  };
}

/** The legacy product detail (GET /products/:id, and what a PUT answers) of product `id`. */
function detailChecks(id: number): BodyChecks {
  return {
    'the product asked for': (b) => (b as Product).id === id,
    'the list item fields plus features': (b) => hasExactKeys(b, [...LIST_ITEM_KEYS, 'features']) && isListItem(b as Product),
    'features are {feature, value}': (b) => (b as Product).features.every((f) => hasExactKeys(f, ['feature', 'value']) && typeof f.feature === 'string' && isStringOrNull(f.value)),
  };
}


export function product(id: number): Call {
  return {
    ...byId(REQUESTS.product, `/products/${id}`, id, detailChecks(id)),
    headerChecks: (status): HeaderChecks => (status === 200 ? { 'ETag is the version': (h) => ETAG.test(h.Etag ?? '') } : {}),
  };
}


/**
 * PUT /products/:id renaming the product and replacing its features, with the
 * API key of API_KEY. Answers 200 with the product as written and its new
 * ETag. With `ifMatch` (an ETag read before), a conditional write: 412 is a
 * correct answer too, when the product has changed since (its ETag says a
 * newer version); any other status is a failure, 404 included (write scripts
 * expect a dense id range, as the bench catalogue has).
 */
export function updateProduct(id: number, update: ProductUpdate, options: { ifMatch?: string } = {}): Call {
  const { ifMatch } = options;
  const sent = etagVersion(ifMatch);
  return {
    name: REQUESTS.updateProduct, method: 'PUT', url: `${config.baseUrl}/products/${id}`, body: JSON.stringify(update),
    headers: { authorization: `Bearer ${requireApiKey()}`, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    statuses: ifMatch === undefined ? [200] : [200, 412],
    bodyChecks: (status): BodyChecks => (status === 412
      ? { '412 says the product changed': (b) => hasExactKeys(b, ['error']) && (b as { error: string }).error.startsWith(`product ${id} has changed`) }
      : {
        ...detailChecks(id),
        'the name and features as written': (b) => (b as Product).name === update.name && JSON.stringify((b as Product).features) === JSON.stringify(update.features),
      }),
    headerChecks: (status): HeaderChecks => (status === 412
      // Only a product that really changed since it was read may refuse the write.
      ? { '412 only when the product changed: its ETag is newer than If-Match': (h) => sent !== undefined && (etagVersion(h.Etag) ?? 0) > sent }
      : { 'ETag is the new version': (h) => etagVersion(h.Etag) !== undefined && (sent === undefined || etagVersion(h.Etag)! > sent) }),
  };
}

export function styles(id: number): Call {
  return byId(REQUESTS.styles, `/products/${id}/styles`, id, {
    'product_id is the id, as a string': (b) => hasExactKeys(b, ['product_id', 'results']) && (b as { product_id: string }).product_id === String(id),
    'styles in style id order': (b) => ascending((b as { results: Style[] }).results.map((s) => s.style_id)),
    'styles: prices, default?, photos, skus keyed by sku id': (b) => (b as { results: Style[] }).results.every(isStyle),
  });
}

export function related(id: number): Call {
  return byId(REQUESTS.related, `/products/${id}/related`, id, {
    'an array of product ids (never 0)': (b) => Array.isArray(b) && b.every(isPositiveInteger),
  });
}
