// The legacy REST contract (../shared/legacy-api.md), byte for byte: every
// expected body is built from the database rows in the contract's field order
// and compared with the raw response text. Every response is also validated
// against the OpenAPI document (/openapi.json), so the docs cannot drift.
import { buildOpenApiDocument } from '../../src/rest/openapi-offline.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCatalogue, createTestClient, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import { Scrape } from '../support/prometheus.ts';

const withoutPlaceholders = await buildOpenApiDocument({ campus: 'hr-rfp', maxPageSize: 100, emptyPlaceholders: false });

function documented(method: string, url: string, response: { statusCode: number; body: string; headers: Record<string, unknown> }, document?: Awaited<ReturnType<typeof buildOpenApiDocument>>): void {
  assertMatchesOpenApi({
    method, path: url.split('?')[0]!, status: response.statusCode,
    body: response.body ? JSON.parse(response.body) : undefined,
    contentType: response.headers['content-type'] as string | undefined,
  }, document);
}

let catalogue: TestCatalogue;
let client: TestClient;

interface ProductRow { id: number; name: string; slogan: string; description: string; category: string; price: string; created_at: Date; updated_at: Date }

const listItem = (p: ProductRow) => ({
  id: p.id, campus: 'hr-rfp', name: p.name, slogan: p.slogan, description: p.description, category: p.category,
  default_price: p.price, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString(),
});

async function productRows(where = 'TRUE', extra = 'ORDER BY id'): Promise<ProductRow[]> {
  return catalogue.direct.rows<ProductRow & Record<string, unknown>>(
    `SELECT id, name, slogan, description, category, default_price::text AS price, created_at, updated_at FROM products WHERE ${where} ${extra}`);
}

async function expectedDetail(id: number) {
  const [product] = await productRows(`id = ${id}`);
  const features = await catalogue.direct.rows<{ feature: string; value: string | null }>('SELECT feature, value FROM features WHERE product_id = $1 ORDER BY id', [id]);
  return { ...listItem(product!), features: features.map((f) => ({ feature: f.feature, value: f.value })) };
}

async function expectedStyles(id: number, placeholders = true) {
  const styles = await catalogue.direct.rows<{ id: number; name: string; original: string; sale: string | null; is_default: boolean }>(
    'SELECT id, name, original_price::text AS original, sale_price::text AS sale, is_default FROM styles WHERE product_id = $1 ORDER BY id', [id]);
  const results = [];
  for (const s of styles) {
    const photos = await catalogue.direct.rows<{ url: string; thumbnail_url: string }>('SELECT url, thumbnail_url FROM photos WHERE style_id = $1 ORDER BY id', [s.id]);
    const skus = await catalogue.direct.rows<{ id: number; size: string; quantity: number }>('SELECT id, size, quantity FROM skus WHERE style_id = $1 ORDER BY id', [s.id]);
    const skuObject: Record<string, unknown> = {};
    for (const k of skus) skuObject[String(k.id)] = { quantity: k.quantity, size: k.size };
    results.push({
      style_id: s.id, name: s.name, original_price: s.original, sale_price: s.sale, 'default?': s.is_default,
      photos: photos.length || !placeholders ? photos.map((p) => ({ thumbnail_url: p.thumbnail_url, url: p.url })) : [{ thumbnail_url: null, url: null }],
      skus: skus.length || !placeholders ? skuObject : { null: { quantity: null, size: null } },
    });
  }
  return { product_id: String(id), results };
}

async function get(url: string, on: TestClient = client, document?: Awaited<ReturnType<typeof buildOpenApiDocument>>) {
  const response = await on.app.inject({ method: 'GET', url });
  documented('GET', url, response, document);
  return { status: response.statusCode, raw: response.body, json: response.body ? JSON.parse(response.body) : undefined, headers: response.headers };
}

beforeAll(async () => {
  catalogue = await createTestCatalogue();
  client = await createTestClient(catalogue.db.url);
});
afterAll(async () => {
  await client?.close();
  await catalogue?.dispose();
});

describe('GET /products', () => {
  it('defaults to page 1, count 5, byte for byte, without features', async () => {
    const response = await get('/products');
    expect(response.status).toBe(200);
    expect(response.raw).toBe(JSON.stringify((await productRows('TRUE', 'ORDER BY id LIMIT 5')).map(listItem)));
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('starts at the (page-1)*count+1-th product, also deep into the catalogue and past gaps in the ids', async () => {
    const all = await productRows();
    // Make a gap: the ids are no longer positions.
    const victim = all[123]!.id;
    expect((await client.app.inject({ method: 'DELETE', url: `/products/${victim}` })).statusCode).toBe(204);
    const remaining = all.filter((p) => p.id !== victim);
    for (const [page, count] of [[2, 3], [25, 5], [41, 7], [Math.ceil(remaining.length / 9), 9], [1, 100]] as const) {
      const response = await get(`/products?page=${page}&count=${count}`);
      expect(response.raw, `page ${page} count ${count}`).toBe(JSON.stringify(remaining.slice((page - 1) * count, page * count).map(listItem)));
    }
    expect((await get(`/products?page=${remaining.length + 1}&count=1`)).raw).toBe('[]');
  });

  it.each(['hello', '5.5', '-1', '0', 'null', '', '1e3', '0x10'])('answers 400 with a JSON error for page or count %j', async (bad) => {
    for (const url of [`/products?page=${bad}`, `/products?count=${bad}`]) {
      const response = await get(url);
      expect(response.status, url).toBe(400);
      expect(Object.keys(response.json)).toEqual(['error']);
      expect(response.json.error).toMatch(/(page|count) must be a positive integer/);
    }
  });

  it('refuses a count above the configured maximum, and a repeated parameter', async () => {
    expect((await get('/products?count=101')).json).toEqual({ error: 'count must be at most 100 (got 101)' });
    expect((await get('/products?count=101')).status).toBe(400);
    expect((await get('/products?page=1&page=2')).status).toBe(400);
  });
});

describe('GET /products/:product_id', () => {
  it('is the list item plus features in feature id order, byte for byte', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>(
      'SELECT product_id AS id FROM features GROUP BY product_id HAVING count(*) >= 2 AND bool_or(value IS NULL) ORDER BY product_id LIMIT 1');
    const response = await get(`/products/${id}`);
    expect(response.status).toBe(200);
    expect(response.raw).toBe(JSON.stringify(await expectedDetail(id)));
  });

  it.each(['hello', '5.5', '-1', '0', 'null', '99999999999'])('answers 400 for product_id %j', async (bad) => {
    for (const suffix of ['', '/styles', '/related']) {
      const response = await get(`/products/${bad}${suffix}`);
      expect(response.status).toBe(400);
      expect(response.json.error).toMatch(/product_id must be a positive integer/);
    }
  });

  it('answers 404 {"error": "product N not found"} for an unknown product on every read route', async () => {
    for (const suffix of ['', '/styles', '/related']) {
      const response = await get(`/products/1000012${suffix}`);
      expect(response.status).toBe(404);
      expect(response.raw).toBe('{"error":"product 1000012 not found"}');
    }
  });
});

describe('GET /products/:product_id/styles', () => {
  it('matches the tables byte for byte: string product_id, two-decimal prices, null sale, default?, skus keyed by id', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>(
      `SELECT product_id AS id FROM styles GROUP BY product_id HAVING count(*) >= 2 AND bool_or(sale_price IS NULL) AND bool_or(sale_price IS NOT NULL) ORDER BY product_id LIMIT 1`);
    const response = await get(`/products/${id}/styles`);
    expect(response.status).toBe(200);
    expect(response.raw).toBe(JSON.stringify(await expectedStyles(id)));
    expect(response.raw).not.toMatch(/"sale_price":"(null|0)"/);
  });

  it('keeps repeated sizes apart (keyed by sku id) in sku id order', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>(
      `SELECT st.product_id AS id FROM skus k JOIN styles st ON st.id = k.style_id GROUP BY st.product_id, k.style_id, k.size HAVING count(*) >= 2 ORDER BY 1 LIMIT 1`);
    const response = await get(`/products/${id}/styles`);
    expect(response.raw).toBe(JSON.stringify(await expectedStyles(id)));
  });

  it('uses the legacy placeholders for a style without photos or skus, and [] / {} when switched off', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>('SELECT id FROM products ORDER BY id DESC LIMIT 1');
    await catalogue.direct.rows(`INSERT INTO styles (product_id, name, original_price, is_default) VALUES (${id}, 'Bare', 10, false)`);
    const legacy = await get(`/products/${id}/styles`);
    expect(legacy.raw).toBe(JSON.stringify(await expectedStyles(id)));
    expect(legacy.raw).toContain('"photos":[{"thumbnail_url":null,"url":null}],"skus":{"null":{"quantity":null,"size":null}}');
    const clean = await createTestClient(catalogue.db.url, { env: { LEGACY_EMPTY_PLACEHOLDERS: 'off' } });
    try {
      const response = await get(`/products/${id}/styles`, clean, withoutPlaceholders);
      expect(response.raw).toBe(JSON.stringify(await expectedStyles(id, false)));
      expect(response.raw).toContain('"photos":[],"skus":{}');
    } finally {
      await clean.close();
    }
  });

  it('is {"product_id": "N", "results": []} for a product without styles', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>('SELECT p.id FROM products p WHERE NOT EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id) ORDER BY p.id LIMIT 1');
    expect((await get(`/products/${id}/styles`)).raw).toBe(`{"product_id":"${id}","results":[]}`);
  });

  it('costs one SQL statement', async () => {
    expect((await get('/products/3/styles')).headers['x-sql-statements']).toBe('1');
  });
});

describe('GET /products/:product_id/related', () => {
  it('keeps duplicates, in related-row order', async () => {
    const { id } = await catalogue.direct.one<{ id: number }>(
      'SELECT current_product_id AS id FROM related GROUP BY current_product_id, related_product_id HAVING count(*) >= 2 ORDER BY 1 LIMIT 1');
    const rows = await catalogue.direct.rows<{ r: number }>('SELECT related_product_id AS r FROM related WHERE current_product_id = $1 ORDER BY id', [id]);
    const response = await get(`/products/${id}/related`);
    expect(response.raw).toBe(JSON.stringify(rows.map((row) => row.r)));
    expect(new Set(response.json).size).toBeLessThan(response.json.length);
    expect(response.json).not.toContain(0);
  });
});

/** Totals of the sql_coalesced_reads histogram over all statements: statements sent, and the reads they carried. */
async function coalescedReads(): Promise<{ statements: number; requests: number }> {
  const scrape = new Scrape((await client.app.inject({ method: 'GET', url: '/metrics' })).body);
  return { statements: scrape.sum('sql_coalesced_reads_count'), requests: scrape.sum('sql_coalesced_reads_sum') };
}

describe('concurrent reads', () => {
  it('answer every request with its own product, byte for byte, at one statement each, when requests share statements', async () => {
    // 40 requests at once over three routes: their keyed reads share statements
    // (src/db/reads/coalesced-reads.ts); none may see another's rows.
    const ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 40 OFFSET 7')).map((row) => row.id);
    const urls = ids.map((id, i) => [`/products/${id}/styles`, `/products/${id}`, `/products/${id}/related`][i % 3]!);
    const before = await coalescedReads();
    const responses = await Promise.all(urls.map((url) => client.app.inject({ method: 'GET', url })));
    for (const [i, url] of urls.entries()) {
      const id = ids[i]!;
      const response = responses[i]!;
      expect(response.statusCode, url).toBe(200);
      const expected = url.endsWith('/styles') ? await expectedStyles(id)
        : url.endsWith('/related') ? (await catalogue.direct.rows<{ r: number }>('SELECT related_product_id AS r FROM related WHERE current_product_id = $1 ORDER BY id', [id])).map((row) => row.r)
          : await expectedDetail(id);
      expect(response.body, url).toBe(JSON.stringify(expected));
      // related reads two relations (the product, its related rows); styles and the detail one statement each.
      expect(response.headers['x-sql-statements'], url).toBe(url.endsWith('/related') ? '2' : '1');
    }
    // Every keyed read was carried by some statement, and fewer statements than reads were sent.
    const after = await coalescedReads();
    const reads = urls.reduce((sum, url) => sum + (url.endsWith('/related') ? 2 : 1), 0);
    expect(after.requests - before.requests).toBe(reads);
    expect(after.statements - before.statements).toBeLessThan(reads);
  });
});

describe('writes', () => {
  const body = { name: 'Contract Tee', slogan: 'Tested', description: 'A product made by a test.', category: 'Shirts', default_price: '19.9', features: [{ feature: 'Fabric', value: 'Cotton' }, { feature: 'Organic', value: null }] };
  const send = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
    const response = await client.app.inject({ method, url, payload: payload === undefined ? undefined : JSON.stringify(payload), headers: payload === undefined ? {} : { 'content-type': 'application/json' } });
    documented(method, url, response);
    return response;
  };

  it('creates (201, the detail shape), and the product reads back at once over REST and GraphQL', async () => {
    const response = await send('POST', '/products', body);
    expect(response.statusCode).toBe(201);
    const created = JSON.parse(response.body);
    expect(response.body).toBe(JSON.stringify(await expectedDetail(created.id)));
    expect(created).toMatchObject({ name: 'Contract Tee', default_price: '19.90', features: body.features });
    expect((await get(`/products/${created.id}`)).raw).toBe(response.body);
    const graphql = await client.post(`{ product(id: "${created.id}") { name defaultPrice features { feature value } } }`);
    expect((graphql.body as { data: unknown }).data).toEqual({ product: { name: 'Contract Tee', defaultPrice: '19.90', features: body.features } });
    // Listings see it at once too (the last page).
    const { n } = await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products');
    expect((await get(`/products?page=${n}&count=1`)).json[0].id).toBe(created.id);
  });

  it('updates only the given fields (200) and replaces features when given', async () => {
    const created = JSON.parse((await send('POST', '/products', body)).body);
    const response = await send('PUT', `/products/${created.id}`, { default_price: 25, features: [{ feature: 'Fit', value: 'Slim' }] });
    expect(response.statusCode).toBe(200);
    const updated = JSON.parse(response.body);
    expect(updated).toMatchObject({ name: 'Contract Tee', default_price: '25.00', features: [{ feature: 'Fit', value: 'Slim' }] });
    expect(new Date(updated.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());
    expect((await get(`/products/${created.id}`)).raw).toBe(response.body);
  });

  it('rounds a number price to the cent, counts characters (not UTF-16 units), ignores unknown and __proto__ properties', async () => {
    const response = await send('POST', '/products', { ...body, default_price: 140.125, name: '😀'.repeat(255), extra: 1, features: [{ feature: 'f', value: null, note: 'x' }] });
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ default_price: '140.13', name: '😀'.repeat(255), features: [{ feature: 'f', value: null }] });
    const proto = await client.app.inject({ method: 'POST', url: '/products', payload: `{"__proto__": {"polluted": 1}, ${JSON.stringify(body).slice(1)}`, headers: { 'content-type': 'application/json' } });
    expect(proto.statusCode).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await send('POST', '/products', { ...body, name: '😀'.repeat(256) })).statusCode).toBe(400);
  });

  it('DELETE with an empty body labelled application/json is a DELETE (204)', async () => {
    const created = JSON.parse((await send('POST', '/products', body)).body);
    const response = await client.app.inject({ method: 'DELETE', url: `/products/${created.id}`, headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(204);
  });

  it('deletes (204, empty) and the product is gone everywhere', async () => {
    const created = JSON.parse((await send('POST', '/products', body)).body);
    const response = await send('DELETE', `/products/${created.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await get(`/products/${created.id}`)).status).toBe(404);
    expect((await send('DELETE', `/products/${created.id}`)).statusCode).toBe(404);
  });

  it.each([
    [{ ...body, name: '' }, /^name: /],
    [{ ...body, default_price: '12.345' }, /^default_price: /],
    [{ ...body, default_price: -1 }, /^default_price: /],
    [{ name: 'x' }, /^slogan: is required/],
    [{ ...body, features: [{ feature: '' }] }, /^features\[0\]\.feature: /],
    [[1, 2], /^body: must be a JSON object/],
    // What the document says, the server does (found by schemathesis): a list is a list, text holds no NUL.
    [{ ...body, features: null }, /^features: must be a list/],
    [{ ...body, name: 'Tee\u0000' }, /^name: .*without NUL characters/],
    [{ ...body, features: [{ feature: 'Fabric', value: 'Cot\u0000ton' }] }, /^features\[0\]\.value: /],
    [{ ...body, slogan: null }, /^slogan: /],
    [{ ...body, name: '\u3000\ufeff ' }, /^name: /],
  ])('rejects a bad body with 400 naming the field, and writes nothing (%#)', async (payload, message) => {
    const { n: before } = await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products');
    const response = await send('POST', '/products', payload);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error).toMatch(message);
    const { n: after } = await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products');
    expect(after).toBe(before);
  });

  it.each([
    ['{}', 'body: must contain at least one of the fields name, slogan, description, category, default_price, features'],
    ['{"__proto__": {}}', 'body: must contain at least one of the fields name, slogan, description, category, default_price, features'],
    ['{"foo": 1}', 'body: must contain at least one of the fields name, slogan, description, category, default_price, features'],
    ['{"id": 5}', 'body: must contain at least one of the fields name, slogan, description, category, default_price, features'],
    ['{"slogan": "ok", "foo": 1}', 'foo: is not a product field'],
  ])('PUT %s is a 400 naming what is wrong, and writes nothing', async (payload, message) => {
    const before = (await get('/products/5')).raw;
    const response = await client.app.inject({ method: 'PUT', url: '/products/5', payload, headers: { 'content-type': 'application/json' } });
    documented('PUT', '/products/5', response);
    expect({ status: response.statusCode, body: response.body }).toEqual({ status: 400, body: JSON.stringify({ error: message }) });
    expect((await get('/products/5')).raw).toBe(before);
  });

  it('PUT of a product as read, edited, is accepted (its read-only fields ignored)', async () => {
    const read = JSON.parse((await get('/products/5')).raw);
    const name = `${read.name} (edited)`;
    try {
      const response = await client.app.inject({ method: 'PUT', url: '/products/5', payload: { ...read, name }, headers: { 'content-type': 'application/json' } });
      documented('PUT', '/products/5', response);
      expect(response.statusCode, response.body).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ id: 5, name });
    } finally {
      await client.app.inject({ method: 'PUT', url: '/products/5', payload: { name: read.name }, headers: { 'content-type': 'application/json' } });
    }
  });

  it('answers 400 for malformed JSON and 400 for an empty update, 404 for updating an unknown product', async () => {
    const malformed = await client.app.inject({ method: 'POST', url: '/products', payload: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
    documented('POST', '/products', malformed);
    expect(JSON.parse(malformed.body)).toEqual({ error: 'request body is not valid JSON' });
    expect((await send('PUT', '/products/1', {})).statusCode).toBe(400);
    expect((await send('PUT', '/products/1000012', { name: 'x' })).statusCode).toBe(404);
  });
});

describe('unknown routes and methods', () => {
  // Found by the fuzz tests (test/fuzz/rest.test.ts): these answered Fastify's
  // own {"message", "error", "statusCode"} (and "code": "FST_ERR_CTP_…" for a body).
  it.each([
    ['PUT', '/products/1/photos', 'no route PUT "/products/1/photos"'],
    ['PATCH', '/nope', 'no route PATCH "/nope"'],
    ['GET', '/products/1/photos?page=2', 'no route GET "/products/1/photos"'],
    ['GET', '/products/1/styles/2', 'no route GET "/products/1/styles/2"'],
  ] as const)('%s %s is 404 {"error": ...}', async (method, url, message) => {
    const response = await client.app.inject({ method, url });
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: message });
  });

  // A path that exists with another method: 405 with Allow (what HTTP and the OpenAPI document say), before any body is read.
  it.each([
    ['PUT', '/products', 'GET, HEAD, POST'],
    ['PATCH', '/products/1', 'GET, HEAD, PUT, DELETE'],
    ['TRACE', '/products', 'GET, HEAD, POST'],
    ['QUERY', '/products/1/styles', 'GET, HEAD'],
    ['POST', '/products/1/related', 'GET, HEAD'],
  ] as const)('%s %s is 405 {"error": ...} with Allow: %s', async (method, url, allow) => {
    const response = await client.app.inject({ method, url, ...(method === 'PUT' ? { payload: '{"name": ', headers: { 'content-type': 'application/json' } } : {}) });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(JSON.parse(response.body)).toEqual({ error: `method ${method} is not allowed on "${url}": use ${allow}` });
  });

  it('a body an unknown route cannot parse is a 400 in the legacy shape too', async () => {
    for (const payload of ['', '{"name": ']) {
      const response = await client.app.inject({ method: 'PUT', url: '/products/1/photos', payload, headers: { 'content-type': 'application/json' } });
      expect(response.statusCode).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ error: 'request body is not valid JSON' });
    }
  });
});
