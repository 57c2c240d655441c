// The legacy simulator speaks the legacy contract (../shared/legacy-api.md)
// byte for byte: key order as the contract's examples, numbers vs strings,
// "default?", skus keyed by sku id, the live service's placeholders, the
// documented errors, and the write routes. No overhead here (fast); the
// queue and faults are in behaviour.test.ts. No database needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Feature, Product, Style } from '../../src/catalog/model/types.ts';
import { productDetail, productStyles } from '../../src/rest/shapes.ts';
import type { SimProduct } from '../../src/legacy-sim/catalogue.ts';
import { type LegacySimulator, startLegacySimulator } from '../../src/legacy-sim/server.ts';

// Key order spelled out from the contract's examples (not imported: they are the contract).
const LIST_KEYS = ['id', 'campus', 'name', 'slogan', 'description', 'category', 'default_price', 'created_at', 'updated_at'];
const DETAIL_KEYS = [...LIST_KEYS, 'features'];
const STYLE_KEYS = ['style_id', 'name', 'original_price', 'sale_price', 'default?', 'photos', 'skus'];
const PRICE = /^\d+\.\d{2}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sim: LegacySimulator;
let clock = new Date('2024-01-02T03:04:05.678Z');

beforeAll(async () => {
  sim = await startLegacySimulator({ products: 1000, seed: 1, overheadMs: 0, now: () => clock });
});
afterAll(() => sim.close());

async function get(path: string) {
  const response = await fetch(`${sim.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function send(method: string, path: string, body?: unknown, raw?: string) {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: response.status, text: await response.text() };
}

/** The first seeded product for which `test` holds. */
function find(test: (p: SimProduct) => boolean): SimProduct {
  for (let id = 1; id <= 1000; id++) {
    const product = sim.catalogue.get(id);
    if (product && test(product)) return product;
  }
  throw new Error('no such product in the seeded catalogue');
}

describe('read routes', () => {
  it('GET /products: list items in id order, keys as the contract, id a number, default_price a string, no features', async () => {
    const { status, type, text } = await get('/products?page=2&count=3');
    expect(status).toBe(200);
    expect(type).toBe('application/json; charset=utf-8');
    const items = JSON.parse(text) as Record<string, unknown>[];
    expect(items.map((i) => i.id)).toEqual([4, 5, 6]);
    for (const item of items) {
      expect(Object.keys(item)).toEqual(LIST_KEYS);
      expect(item.campus).toBe('hr-rfp');
      expect(item.default_price).toMatch(PRICE);
      expect(item.created_at).toMatch(ISO);
      expect(item.updated_at).toMatch(ISO);
      expect(item).not.toHaveProperty('features');
    }
    expect(JSON.parse((await get('/products')).text).map((i: { id: number }) => i.id)).toEqual([1, 2, 3, 4, 5]);
    expect((await get('/products?page=1000&count=5')).text).toBe('[]');
  });

  it('GET /products/:id: the list item plus features in feature order, value may be null', async () => {
    const product = find((p) => p.features.some((f) => f.value === null) && p.features.length >= 2);
    const { status, text } = await get(`/products/${product.id}`);
    expect(status).toBe(200);
    const detail = JSON.parse(text);
    expect(Object.keys(detail)).toEqual(DETAIL_KEYS);
    expect(detail.features).toEqual(product.features.map((f) => ({ feature: f.feature, value: f.value })));
    for (const f of detail.features) expect(Object.keys(f)).toEqual(['feature', 'value']);
    expect(text).toContain('"value":null');
  });

  it('GET /products/:id/styles: product_id a string, style_id a number, string prices, null sale_price, "default?" boolean, skus keyed by sku id in order', async () => {
    const product = find((p) => p.styles.some((s) => s.salePrice === null) && p.styles.some((s) => s.skus.length >= 7));
    const { status, text } = await get(`/products/${product.id}/styles`);
    expect(status).toBe(200);
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['product_id', 'results']);
    expect(body.product_id).toBe(String(product.id));
    expect(body.results.map((s: { style_id: number }) => s.style_id)).toEqual(product.styles.map((s) => s.id));
    for (const style of body.results) {
      expect(Object.keys(style)).toEqual(STYLE_KEYS);
      expect(typeof style.style_id).toBe('number');
      expect(style.original_price).toMatch(PRICE);
      if (style.sale_price !== null) expect(style.sale_price).toMatch(PRICE);
      expect(typeof style['default?']).toBe('boolean');
      for (const photo of style.photos) expect(Object.keys(photo)).toEqual(['thumbnail_url', 'url']);
      const keys = Object.keys(style.skus);
      expect(keys.map(Number)).toEqual([...keys.map(Number)].sort((a, b) => a - b));
      for (const sku of Object.values(style.skus) as Record<string, unknown>[]) {
        expect(Object.keys(sku)).toEqual(['quantity', 'size']);
        expect(typeof sku.quantity).toBe('number');
        expect(typeof sku.size).toBe('string');
      }
    }
    expect(text).toContain('"sale_price":null');
    expect(text).not.toContain('"sale_price":"null"');
    // Sizes repeat inside a big style: that is why skus are keyed by id.
    const big = body.results.find((s: { skus: object }) => Object.keys(s.skus).length >= 7);
    const sizes = Object.values(big.skus as Record<string, { size: string }>).map((s) => s.size);
    expect(new Set(sizes).size).toBeLessThan(sizes.length);
  });

  it('styles without photos or skus get the live service\'s placeholders; a product without styles an empty results list', async () => {
    const noPhotos = find((p) => p.styles.some((s) => s.photos.length === 0));
    expect((await get(`/products/${noPhotos.id}/styles`)).text).toContain('"photos":[{"thumbnail_url":null,"url":null}]');
    const noSkus = find((p) => p.styles.some((s) => s.skus.length === 0));
    expect((await get(`/products/${noSkus.id}/styles`)).text).toContain('"skus":{"null":{"quantity":null,"size":null}}');
    const noStyles = find((p) => p.styles.length === 0);
    expect((await get(`/products/${noStyles.id}/styles`)).text).toBe(`{"product_id":"${noStyles.id}","results":[]}`);
  });

  it('without placeholders (emptyPlaceholders: false) they are [] and {}', async () => {
    const plain = await startLegacySimulator({ products: 1000, seed: 1, overheadMs: 0, emptyPlaceholders: false });
    try {
      const noPhotos = find((p) => p.styles.some((s) => s.photos.length === 0 && s.skus.length > 0));
      const text = await (await fetch(`${plain.url}/products/${noPhotos.id}/styles`)).text();
      expect(text).toContain('"photos":[]');
      expect(text).not.toContain('null,"url"');
    } finally {
      await plain.close();
    }
  });

  it('GET /products/:id/related: numbers in row order, duplicates kept, never 0 nor a missing product', async () => {
    const product = find((p) => p.related.some((id, i) => p.related[i - 1] === id));
    const { status, text } = await get(`/products/${product.id}/related`);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual(product.related);
    expect(text).toMatch(/^\[(\d+(,\d+)*)?\]$/);
    sim.catalogue.update(product.id, { related: [...product.related, 0, 999_999] }, { touch: false });
    expect(JSON.parse((await get(`/products/${product.id}/related`)).text)).toEqual(product.related.slice(0, -2));
  });

  it('the same product renders to the same bytes as the project\'s own REST shapes (src/rest/shapes.ts)', async () => {
    const options = { campus: 'hr-rfp', emptyPlaceholders: true };
    for (const p of [find((x) => x.styles.some((s) => s.photos.length === 0)), find((x) => x.styles.some((s) => s.skus.length === 0)), sim.catalogue.get(7)!]) {
      const product: Product = {
        id: p.id, name: p.name, slogan: p.slogan, description: p.description, category: p.category,
        defaultPrice: p.defaultPrice, createdAt: p.createdAt, updatedAt: p.updatedAt, version: '1',
      };
      const features: Feature[] = p.features.map((f) => ({ id: f.id, productId: p.id, feature: f.feature, value: f.value }));
      const styles: Style[] = p.styles.map((s) => ({
        id: s.id, productId: p.id, name: s.name, salePrice: s.salePrice, originalPrice: s.originalPrice, isDefault: s.isDefault,
        photos: s.photos.map((ph) => ({ url: ph.url, thumbnailUrl: ph.thumbnailUrl })), skus: s.skus.map((k) => ({ id: k.id, size: k.size, quantity: k.quantity })),
      }));
      expect((await get(`/products/${p.id}`)).text).toBe(JSON.stringify(productDetail(product, features, options)));
      expect((await get(`/products/${p.id}/styles`)).text).toBe(JSON.stringify(productStyles(p.id, styles, options)));
    }
  });

  it('is deterministic: the same seed and size serve the same bytes, another seed other bytes', async () => {
    const again = await startLegacySimulator({ products: 1000, seed: 1, overheadMs: 0 });
    const other = await startLegacySimulator({ products: 1000, seed: 2, overheadMs: 0 });
    try {
      for (const path of ['/products?count=20', '/products/12', '/products/12/styles', '/products/12/related']) {
        expect(await (await fetch(`${again.url}${path}`)).text()).toBe((await get(path)).text);
      }
      expect(await (await fetch(`${other.url}/products/12`)).text()).not.toBe((await get('/products/12')).text);
    } finally {
      await Promise.all([again.close(), other.close()]);
    }
  });
});

describe('errors', () => {
  it.each([
    ['/products/hello', 'product_id must be a positive integer (got "hello")'],
    ['/products/5.5/styles', 'product_id must be a positive integer (got "5.5")'],
    ['/products/-1/related', 'product_id must be a positive integer (got "-1")'],
    ['/products/null', 'product_id must be a positive integer (got "null")'],
    ['/products?page=0', 'page must be a positive integer (got "0")'],
    ['/products?count=hello', 'count must be a positive integer (got "hello")'],
    ['/products?count=101', 'count must be at most 100 (got 101)'],
    ['/products?page=1&page=2', 'page must be given once'],
  ])('GET %s is a 400 {"error": ...}', async (path, message) => {
    const { status, type, text } = await get(path);
    expect(status).toBe(400);
    expect(type).toBe('application/json; charset=utf-8');
    expect(text).toBe(JSON.stringify({ error: message }));
  });

  it.each(['/products/1000012', '/products/1000012/styles', '/products/1000012/related'])('GET %s of an unknown product is a 404', async (path) => {
    expect(await get(path)).toMatchObject({ status: 404, text: '{"error":"product 1000012 not found"}' });
  });

  it('an unknown route or method is a 404 naming it', async () => {
    expect(await send('PUT', '/products', { name: 'x' })).toEqual({ status: 404, text: '{"error":"no route PUT \\"/products\\""}' });
    expect(await get('/products/1/nope')).toMatchObject({ status: 404, text: '{"error":"no route GET \\"/products/1/nope\\""}' });
  });
});

describe('write routes', () => {
  const body = { name: 'Sim Jacket', slogan: 'Made up', description: 'For the tests', category: 'Jackets', default_price: '99.5', features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Cut', value: null }] };

  it('POST /products: 201 and the created product in the detail shape, timestamps now; then readable', async () => {
    clock = new Date('2024-02-03T04:05:06.789Z');
    const created = await send('POST', '/products', body);
    expect(created.status).toBe(201);
    const detail = JSON.parse(created.text);
    expect(Object.keys(detail)).toEqual(DETAIL_KEYS);
    expect(detail).toMatchObject({ name: 'Sim Jacket', default_price: '99.50', created_at: '2024-02-03T04:05:06.789Z', updated_at: '2024-02-03T04:05:06.789Z', features: body.features });
    expect(detail.id).toBeGreaterThan(1000);
    expect((await get(`/products/${detail.id}`)).text).toBe(created.text);
    expect((await get(`/products/${detail.id}/styles`)).text).toBe(`{"product_id":"${detail.id}","results":[]}`);
    expect((await get(`/products/${detail.id}/related`)).text).toBe('[]');
  });

  it('PUT /products/:id: 200 and the product with any subset changed (features replace the list), updated_at moves, created_at does not', async () => {
    clock = new Date('2024-03-04T05:06:07.890Z');
    const before = JSON.parse((await get('/products/3')).text);
    const updated = await send('PUT', '/products/3', { default_price: 12, features: [{ feature: 'Sole', value: 'Rubber' }] });
    expect(updated.status).toBe(200);
    const after = JSON.parse(updated.text);
    expect(after).toEqual({ ...before, default_price: '12.00', updated_at: '2024-03-04T05:06:07.890Z', features: [{ feature: 'Sole', value: 'Rubber' }] });
    expect((await get('/products/3')).text).toBe(updated.text);
    expect(JSON.parse((await get('/products?count=3')).text)[2].updated_at).toBe('2024-03-04T05:06:07.890Z');
  });

  it('DELETE /products/:id: 204 without a body; then 404, gone from the listing and from related lists', async () => {
    const deleted = await send('DELETE', '/products/8');
    expect(deleted).toEqual({ status: 204, text: '' });
    expect((await get('/products/8')).status).toBe(404);
    expect(JSON.parse((await get('/products?page=2&count=5')).text).map((i: { id: number }) => i.id)).toEqual([6, 7, 9, 10, 11]);
    const pointing = find((p) => p.related.includes(8));
    expect(JSON.parse((await get(`/products/${pointing.id}/related`)).text)).not.toContain(8);
  });

  it('unknown products are 404 for PUT and DELETE', async () => {
    expect(await send('PUT', '/products/1000012', { name: 'x' })).toEqual({ status: 404, text: '{"error":"product 1000012 not found"}' });
    expect(await send('DELETE', '/products/1000012')).toEqual({ status: 404, text: '{"error":"product 1000012 not found"}' });
  });

  it.each([
    ['POST', '/products', { ...body, name: undefined }, 'name: is required'],
    ['POST', '/products', { ...body, default_price: '1.234' }, 'default_price: must be a price from 0 to 99999999.99 with at most two decimals, e.g. "140.00"'],
    ['POST', '/products', { ...body, features: 'many' }, 'features: must be a list of {feature, value}'],
    ['POST', '/products', [1, 2], 'body: must be a JSON object'],
    ['PUT', '/products/2', {}, 'body: must contain at least one field to change'],
    ['PUT', '/products/2', { name: 7 }, 'name: must be a string'],
    ['PUT', '/products/hello', { name: 'x' }, 'product_id must be a positive integer (got "hello")'],
    ['DELETE', '/products/0', undefined, 'product_id must be a positive integer (got "0")'],
  ])('%s %s with bad input is a 400 naming the field', async (method, path, input, message) => {
    expect(await send(method, path, input)).toEqual({ status: 400, text: JSON.stringify({ error: message }) });
  });

  it('a body that is not JSON is a 400, and nothing is written', async () => {
    const before = (await get('/products/2')).text;
    expect(await send('PUT', '/products/2', undefined, '{"name": ')).toEqual({ status: 400, text: '{"error":"request body is not valid JSON"}' });
    expect((await get('/products/2')).text).toBe(before);
  });
});
