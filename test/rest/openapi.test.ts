// The OpenAPI 3.1 document of the legacy REST routes (src/rest/openapi.ts):
// it is a valid OpenAPI 3.1 document, it documents exactly the routes the app
// registers, and real responses from a generated catalogue (every route, every
// documented status) match it. Read-only requests run first; writes at the end.
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument } from '../../src/rest/openapi-offline.ts';
import { HTTP_METHODS, type JsonSchema, type OpenApiDocument } from '../../src/rest/openapi.ts';
import { registerRestRoutes, type RestDependencies } from '../../src/rest/routes.ts';
import { createTestCatalogue, createTestClient, type DirectDb, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { assertMatchesOpenApi, compileSchema, createAjv, defaultOpenApiDocument, findPathTemplate, resolveRef } from '../support/openapi.ts';

const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
const MAX = config.maxPageSize;

let catalogue: TestCatalogue;
let db: DirectDb;
let client: TestClient;
let document: OpenApiDocument;

beforeAll(async () => {
  catalogue = await createTestCatalogue();
  db = catalogue.direct;
  client = await createTestClient(catalogue.db.url);
  document = defaultOpenApiDocument();
});

afterAll(async () => {
  await client?.close();
  await catalogue?.dispose();
});

interface Reply {
  status: number;
  contentType: string | undefined;
  body: any;
  raw: string;
}

/** Every (operation, status) a request below produced, to check that each documented status is reached. */
const seen = new Set<string>();

/** Sends a request through the real app and checks the response against the document. */
async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}, via: TestClient = client): Promise<Reply> {
  const response = await via.app.inject({
    method, url,
    ...(payload === undefined ? { headers } : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers } }),
  });
  const contentType = response.headers['content-type'] as string | undefined;
  const body = response.body === '' ? undefined : JSON.parse(response.body);
  assertMatchesOpenApi({ method, path: url, status: response.statusCode, body, ...(contentType ? { contentType } : {}) }, document);
  seen.add(`${method.toLowerCase()} ${findPathTemplate(document, url)} ${response.statusCode}`);
  return { status: response.statusCode, contentType, body, raw: response.body };
}

function operations(doc: OpenApiDocument): { method: string; template: string }[] {
  return Object.entries(doc.paths).flatMap(([template, item]) => HTTP_METHODS.filter((m) => item[m]).map((method) => ({ method, template })));
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (official schema), in both placeholder modes', async () => {
    for (const emptyPlaceholders of [true, false]) {
      const doc = await buildOpenApiDocument({ campus: 'hr-rfp', maxPageSize: 100, emptyPlaceholders });
      const validator = new Validator();
      const result = await validator.validate(doc as unknown as Record<string, unknown>);
      expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    }
  });

  it('the validator used above does reject broken documents', async () => {
    const breakages: ((doc: any) => void)[] = [
      (doc) => { doc.paths['/products'].get.responses = {}; },
      (doc) => { doc.paths['/products'].get.parameters[0].in = 'body'; },
      (doc) => { doc.openapi = '3.1'; },
      (doc) => { delete doc.info.title; },
    ];
    for (const breakIt of breakages) {
      const broken = structuredClone(defaultOpenApiDocument()) as unknown;
      breakIt(broken);
      expect((await new Validator().validate(broken as Record<string, unknown>)).valid, String(breakIt)).toBe(false);
    }
  });

  it('has schemas that are strict, valid JSON Schema 2020-12, and examples that match them', async () => {
    for (const emptyPlaceholders of [true, false]) {
      const doc = await buildOpenApiDocument({ campus: 'hr-rfp', maxPageSize: 100, emptyPlaceholders });
      for (const [name, schema] of Object.entries(doc.components.schemas)) {
        expect(() => compileSchema(doc, schema, createAjv()), name).not.toThrow();
      }
      let examples = 0;
      for (const { method, template } of operations(doc)) {
        const operation = doc.paths[template]![method as 'get']!;
        const bodies = Object.entries(operation.responses).map(([status, response]) => [status, resolveRef<{ content?: Record<string, MediaType> }>(doc, response as never)] as const);
        const request = operation.requestBody as { content: Record<string, MediaType> } | undefined;
        const media = [
          ...bodies.flatMap(([status, r]) => Object.values(r.content ?? {}).map((m) => [`${method} ${template} ${status}`, m] as const)),
          ...(request ? Object.values(request.content).map((m) => [`${method} ${template} request`, m] as const) : []),
        ];
        for (const [label, { schema, example, examples: named }] of media) {
          const validate = compileSchema(doc, schema, createAjv());
          const values = [...(example === undefined ? [] : [example]), ...Object.values(named ?? {}).map((e) => e.value)];
          for (const value of values) {
            examples++;
            expect(validate(value), `${label}: ${JSON.stringify(validate.errors)}`).toBe(true);
          }
        }
      }
      expect(examples).toBeGreaterThanOrEqual(15);
    }
  }, 180_000); // a failure bound: validating every schema and example takes minutes on a loaded host

  it('documents parameters as the routes check them: positive integers, count at most maxPageSize, defaults page=1 count=5', async () => {
    type Parameter = { name: string; in: string; required: boolean; schema: Record<string, unknown> };
    const parameters = (doc: OpenApiDocument, template: string, method: 'get' | 'put' | 'delete') =>
      Object.fromEntries((doc.paths[template]![method]!.parameters as Parameter[]).map((p) => [p.name, p]));
    const list = parameters(document, '/products', 'get');
    expect(list.page).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } });
    expect(list.count).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX, default: 5 } });
    for (const [template, method] of [['/products/{product_id}', 'get'], ['/products/{product_id}', 'put'], ['/products/{product_id}', 'delete'], ['/products/{product_id}/styles', 'get'], ['/products/{product_id}/related', 'get']] as const) {
      expect(parameters(document, template, method).product_id, `${method} ${template}`).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
    }
    expect(parameters(await buildOpenApiDocument({ campus: 'x', maxPageSize: 37, emptyPlaceholders: true }), '/products', 'get').count).toMatchObject({ schema: { maximum: 37 } });
  });

  it('is served at GET /openapi.json, as built from the configuration', async () => {
    const response = await client.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual(await buildOpenApiDocument({ campus: config.legacyCampus, maxPageSize: MAX, emptyPlaceholders: config.legacyEmptyPlaceholders }));
  });

  it('documents exactly the routes the REST module registers, and the app has each of them', async () => {
    // registerRestRoutes on a bare Fastify, to list what it registers (handlers never run).
    const bare: FastifyInstance = Fastify();
    const registered: string[] = [];
    bare.addHook('onRoute', (route) => {
      if (route.url === '/openapi.json') return;
      for (const method of [route.method].flat()) if (method !== 'HEAD') registered.push(`${method.toLowerCase()} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    });
    await registerRestRoutes(bare, { legacy: { campus: 'hr-rfp', emptyPlaceholders: true }, maxPageSize: MAX, guard: async () => {} } as unknown as RestDependencies);
    await bare.ready();
    await bare.close();
    const documented = operations(document).map(({ method, template }) => `${method} ${template}`);
    expect([...registered].sort()).toEqual([...documented].sort());
    expect(documented).toHaveLength(7);

    for (const { method, template } of operations(document)) {
      expect(client.app.hasRoute({ method: method.toUpperCase() as 'GET', url: template.replace(/\{(\w+)\}/g, ':$1') }), `${method} ${template}`).toBe(true);
    }
    // Nothing else answers under /products: another method is a 405 naming the ones there are.
    const patch = await client.app.inject({ method: 'PATCH', url: '/products/1', payload: {} });
    expect(patch.statusCode).toBe(405);
    expect(patch.headers.allow).toBe('GET, HEAD, PUT, DELETE');
    expect((await client.app.inject({ method: 'GET', url: '/products/1/photos' })).statusCode).toBe(404);
  });
});

interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

describe('real responses match the document', () => {
  it('GET /products: defaults, pages, the maximum count, past the end', async () => {
    const first = await call('GET', '/products');
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(5);
    expect(first.body.map((p: { id: number }) => p.id)).toEqual((await call('GET', '/products?page=1&count=5')).body.map((p: { id: number }) => p.id));
    expect((await call('GET', '/products?page=2&count=3')).body).toHaveLength(3);
    expect((await call('GET', `/products?count=${MAX}`)).body).toHaveLength(MAX);
    expect((await call('GET', '/products?page=100000&count=5')).body).toEqual([]);
  });

  it('GET /products/:id, including a feature whose value is null', async () => {
    const { product_id: withNull } = await db.one<{ product_id: number }>('SELECT product_id FROM features WHERE value IS NULL ORDER BY id LIMIT 1');
    const detail = await call('GET', `/products/${withNull}`);
    expect(detail.status).toBe(200);
    expect(detail.body.features.some((f: { value: unknown }) => f.value === null)).toBe(true);
    expect((await call('GET', '/products/1')).status).toBe(200);
  });

  it('GET /products/:id/styles: photos and skus, a sale, no styles, and a style without photos or skus (placeholders)', async () => {
    const { product_id: full } = await db.one<{ product_id: number }>(
      `SELECT s.product_id FROM styles s WHERE s.sale_price IS NOT NULL
         AND EXISTS (SELECT 1 FROM photos p WHERE p.style_id = s.id) AND EXISTS (SELECT 1 FROM skus k WHERE k.style_id = s.id)
       ORDER BY s.id LIMIT 1`);
    const styles = await call('GET', `/products/${full}/styles`);
    expect(styles.status).toBe(200);
    expect(styles.body.product_id).toBe(String(full));
    expect(styles.body.results.some((s: { sale_price: unknown }) => typeof s.sale_price === 'string')).toBe(true);

    const noStyles = await db.rows<{ id: number }>('SELECT id FROM products p WHERE NOT EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id) ORDER BY id LIMIT 1');
    if (noStyles[0]) expect((await call('GET', `/products/${noStyles[0].id}/styles`)).body).toEqual({ product_id: String(noStyles[0].id), results: [] });

    // A style with no photos and no skus, made for this test.
    const { id: bare } = await db.one<{ id: number }>(
      "INSERT INTO styles (product_id, name, sale_price, original_price, is_default) VALUES ($1, 'Bare style', NULL, 12.5, false) RETURNING id", [full]);
    const withBare = await call('GET', `/products/${full}/styles`);
    expect(withBare.body.results.find((s: { style_id: number }) => s.style_id === bare)).toEqual({
      style_id: bare, name: 'Bare style', original_price: '12.50', sale_price: null, 'default?': false,
      photos: [{ thumbnail_url: null, url: null }],
      skus: { null: { quantity: null, size: null } },
    });

    // With placeholders off, the same style has [] and {}, which the document built for that mode accepts.
    const plain = await createTestClient(catalogue.db.url, { env: { LEGACY_EMPTY_PLACEHOLDERS: 'off' } });
    try {
      const response = await plain.app.inject({ method: 'GET', url: `/products/${full}/styles` });
      const body = JSON.parse(response.body);
      expect(body.results.find((s: { style_id: number }) => s.style_id === bare)).toMatchObject({ photos: [], skus: {} });
      const offDocument = await buildOpenApiDocument({ campus: config.legacyCampus, maxPageSize: MAX, emptyPlaceholders: false });
      assertMatchesOpenApi({ method: 'GET', path: `/products/${full}/styles`, status: response.statusCode, body }, offDocument);
      // ...and the placeholder-mode document does not: it promises placeholders, never empty lists.
      expect(() => assertMatchesOpenApi({ method: 'GET', path: `/products/${full}/styles`, status: 200, body }, document)).toThrow(/photos/);
    } finally {
      await plain.close();
    }
  });

  it('GET /products/:id/related, with and without related products', async () => {
    const { current_product_id: withRelated } = await db.one<{ current_product_id: number }>('SELECT current_product_id FROM related ORDER BY id LIMIT 1');
    const related = await call('GET', `/products/${withRelated}/related`);
    expect(related.status).toBe(200);
    expect(related.body.length).toBeGreaterThan(0);
    const none = await db.rows<{ id: number }>('SELECT id FROM products p WHERE NOT EXISTS (SELECT 1 FROM related r WHERE r.current_product_id = p.id) ORDER BY id LIMIT 1');
    if (none[0]) expect((await call('GET', `/products/${none[0].id}/related`)).body).toEqual([]);
  });

  it('400 for malformed ids, pages and counts, on every route', async () => {
    for (const bad of ['hello', '5.5', '-1', '0', 'null', '', '01', '1e3', '99999999999']) {
      for (const param of ['page', 'count']) {
        const response = await call('GET', `/products?${param}=${encodeURIComponent(bad)}`);
        expect(response.status, `${param}=${bad}`).toBe(400);
        expect(response.body.error).toContain(param);
      }
      if (bad === '') continue;
      for (const [method, url] of [['GET', ''], ['GET', '/styles'], ['GET', '/related'], ['PUT', ''], ['DELETE', '']] as const) {
        const response = await call(method, `/products/${encodeURIComponent(bad)}${url}`, method === 'PUT' ? { name: 'x' } : undefined);
        expect(response.status, `${method} ${bad}${url}`).toBe(400);
        expect(response.body.error).toContain('product_id');
      }
    }
    for (const url of [`/products?count=${MAX + 1}`, '/products?page=1&page=2']) expect((await call('GET', url)).status, url).toBe(400);
  });

  it('404 for an unknown product, on every route', async () => {
    for (const [method, url, payload] of [
      ['GET', '/products/1000012', undefined], ['GET', '/products/1000012/styles', undefined], ['GET', '/products/1000012/related', undefined],
      ['PUT', '/products/1000012', { name: 'Renamed' }], ['DELETE', '/products/1000012', undefined],
    ] as const) {
      const response = await call(method, url, payload);
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body).toEqual({ error: 'product 1000012 not found' });
    }
  });

  it('writes: POST 201/400/413/415, PUT 200/400/413/415, DELETE 204/413/415', async () => {
    const created = await call('POST', '/products', {
      name: 'Contract Jacket', slogan: 'Documented', description: 'Made to match its schema.', category: 'Jackets',
      default_price: 99.5, features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Lining', value: null }, { feature: 'Zip' }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Contract Jacket', default_price: '99.50', features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Lining', value: null }, { feature: 'Zip', value: null }] });
    const id = created.body.id as number;
    expect((await call('POST', '/products', { name: 'Plain', slogan: '', description: '', category: 'Pants', default_price: '10' })).status).toBe(201);

    // A new product has no styles and no related products.
    expect((await call('GET', `/products/${id}/styles`)).body).toEqual({ product_id: String(id), results: [] });
    expect((await call('GET', `/products/${id}/related`)).body).toEqual([]);

    for (const payload of [
      { slogan: 's', description: 'd', category: 'c', default_price: '1.00' },
      { name: 'n', slogan: 's', description: 'd', category: 'c', default_price: 'abc' },
      { name: 'n', slogan: 's', description: 'd', category: 'c', default_price: '1.00', features: 'none' },
      [1, 2],
      '{"name": ',
    ]) {
      const response = await call('POST', '/products', payload);
      expect(response.status, JSON.stringify(payload)).toBe(400);
    }
    const huge = { name: 'n', slogan: 's', description: 'x'.repeat(1_200_000), category: 'c', default_price: '1.00' };
    expect((await call('POST', '/products', huge)).status).toBe(413);
    expect((await call('POST', '/products', '<product/>', { 'content-type': 'application/xml' })).status).toBe(415);

    const updated = await call('PUT', `/products/${id}`, { default_price: '120', features: [] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, name: 'Contract Jacket', default_price: '120.00', features: [] });
    expect((await call('PUT', `/products/${id}`, {})).status).toBe(400);
    expect((await call('PUT', `/products/${id}`, { name: '   ' })).status).toBe(400);
    expect((await call('PUT', `/products/${id}`, huge)).status).toBe(413);
    expect((await call('PUT', `/products/${id}`, '<product/>', { 'content-type': 'application/xml' })).status).toBe(415);

    expect((await call('DELETE', `/products/${id}`, '<x/>', { 'content-type': 'application/xml' })).status).toBe(415);
    expect((await call('DELETE', `/products/${id}`, huge)).status).toBe(413);
    const deleted = await call('DELETE', `/products/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.raw).toBe('');
    expect((await call('GET', `/products/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/products/${id}`)).status).toBe(404);
  });

  it('creates with an Idempotency-Key: POST 201 (and again), 422 for other content, 404 once the product is gone', async () => {
    const key = { 'idempotency-key': `openapi-${Date.now()}` };
    const body = { name: 'Keyed', slogan: 's', description: 'd', category: 'Pants', default_price: '10' };
    const created = await call('POST', '/products', body, key);
    expect(created.status).toBe(201);
    expect((await call('POST', '/products', body, key)).body).toEqual(created.body);
    expect((await call('POST', '/products', { ...body, name: 'Other' }, key)).status).toBe(422);
    expect((await call('DELETE', `/products/${created.body.id}`)).status).toBe(204);
    expect((await call('POST', '/products', body, key)).status).toBe(404);
  });

  it('conditional requests: GET 304 for the current ETag, PUT and DELETE 412 for a stale one, 428 where If-Match is required', async () => {
    const created = await call('POST', '/products', { name: 'Versioned', slogan: 's', description: 'd', category: 'Pants', default_price: '10' });
    const id = created.body.id as number;
    const read = await client.app.inject({ method: 'GET', url: `/products/${id}` });
    const etag = read.headers.etag as string;
    expect(etag).toMatch(/^"\d+"$/);
    const notModified = await call('GET', `/products/${id}`, undefined, { 'if-none-match': etag });
    expect(notModified).toMatchObject({ status: 304, raw: '' });
    // Every read has an ETag of its own (a hash of the bytes for all but the detail), and a 304 for it.
    for (const url of ['/products?page=1&count=2', '/products/1/styles', '/products/1/related']) {
      const first = await client.app.inject({ method: 'GET', url });
      expect(first.headers.etag, url).toMatch(/^"[\w-]+"$/);
      expect(await call('GET', url, undefined, { 'if-none-match': first.headers.etag as string })).toMatchObject({ status: 304, raw: '' });
    }
    expect((await call('PUT', `/products/${id}`, { name: 'Versioned twice' }, { 'if-match': etag })).status).toBe(200);
    expect((await call('PUT', `/products/${id}`, { name: 'Lost update' }, { 'if-match': etag })).status).toBe(412);
    expect((await call('DELETE', `/products/${id}`, undefined, { 'if-match': etag })).status).toBe(412);
    const strict = await createTestClient(catalogue.db.url, { env: { WRITES_REQUIRE_IF_MATCH: 'on' } });
    try {
      expect((await call('PUT', `/products/${id}`, { name: 'Unconditional' }, {}, strict)).status).toBe(428);
      expect((await call('DELETE', `/products/${id}`, undefined, {}, strict)).status).toBe(428);
      expect((await call('DELETE', `/products/${id}`, undefined, { 'if-match': '*' }, strict)).status).toBe(204);
    } finally {
      await strict.close();
    }
  });

  // A product_id with malformed percent-encoding never reaches the route: the
  // router rejects it, and the server's frameworkErrors answers in the legacy shape.
  it('400 for a product_id with malformed percent-encoding has the legacy {"error"} body', async () => {
    for (const url of ['/products/%ZZ', '/products/%E0%A4%A/styles', '/products/%ZZ/related']) {
      const response = await client.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      assertMatchesOpenApi({ method: 'GET', path: url, status: response.statusCode, body: JSON.parse(response.body) }, document);
    }
  });

  // 401, 429 and 503 (API keys and rate limits) are produced for every operation in test/auth/openapi-access.test.ts;
  // 503 for an outage needs Postgres down: test/faults/outage.test.ts produces it on every route.
  it('every documented status of every operation was produced above (except the masked 500, the access statuses and the outage 503)', () => {
    const missing = operations(document).flatMap(({ method, template }) => Object.keys(document.paths[template]![method as 'get']!.responses)
      .filter((status) => !['500', '401', '429', '503'].includes(status))
      .map((status) => `${method} ${template} ${status}`)
      .filter((key) => !seen.has(key)));
    expect(missing).toEqual([]);
  });
});

describe('assertMatchesOpenApi catches drift', () => {
  const product = {
    id: 1, campus: 'hr-rfp', name: 'Camo Onesie', slogan: 's', description: 'd', category: 'Jackets', default_price: '140.00',
    created_at: '2021-08-13T14:38:44.509Z', updated_at: '2021-08-13T14:38:44.509Z', features: [{ feature: 'Fabric', value: null }],
  };
  const style = {
    style_id: 1, name: 'Forest', original_price: '140.00', sale_price: null, 'default?': true,
    photos: [{ thumbnail_url: 't', url: 'u' }], skus: { 1: { quantity: 8, size: 'XS' } },
  };
  const check = (path: string, body: unknown, status = 200, method = 'GET') => () => assertMatchesOpenApi({ method, path, status, body }, document);

  it('accepts the well-formed bodies these cases start from', () => {
    expect(check('/products/1', product)).not.toThrow();
    expect(check('/products/1/styles', { product_id: '1', results: [style] })).not.toThrow();
  });

  it('rejects an extra field, a missing field, a wrong type, a number price', () => {
    expect(check('/products/1', { ...product, extra: true })).toThrow(/\/?\(body\) must NOT have additional properties "extra"/);
    const { features: _features, ...listItem } = product;
    expect(check('/products/1', listItem)).toThrow(/must have required property 'features'/);
    expect(check('/products', [product])).toThrow(/\/0 must NOT have additional properties "features"/);
    expect(check('/products/1', { ...product, id: '1' })).toThrow(/\/id must be integer/);
    expect(check('/products/1', { ...product, default_price: 140 })).toThrow(/\/default_price must be string/);
    expect(check('/products/1', { ...product, default_price: '140' })).toThrow(/\/default_price must match pattern/);
    expect(check('/products/1', { ...product, campus: 'elsewhere' })).toThrow(/\/campus must be equal to constant/);
  });

  it('rejects legacy-style drift in styles: sale_price 0 or "0", numeric product_id, skus keyed by size, empty lists', () => {
    const styles = (s: Record<string, unknown>, productId: unknown = '1') => ({ product_id: productId, results: [{ ...style, ...s }] });
    expect(check('/products/1/styles', styles({ sale_price: 0 }))).toThrow(/\/results\/0\/sale_price/);
    expect(check('/products/1/styles', styles({ sale_price: '0' }))).toThrow(/\/results\/0\/sale_price must match pattern/);
    expect(check('/products/1/styles', styles({ sale_price: 'null' }))).toThrow(/sale_price/);
    expect(check('/products/1/styles', styles({}, 1))).toThrow(/\/product_id must be string/);
    expect(check('/products/1/styles', styles({ skus: { XS: { quantity: 8, size: 'XS' } } }))).toThrow(/skus/);
    expect(check('/products/1/styles', styles({ skus: { 1: { quantity: 8, size: 'XS', id: 1 } } }))).toThrow(/skus/);
    expect(check('/products/1/styles', styles({ photos: [] }))).toThrow(/photos/);
    expect(check('/products/1/styles', styles({ default: true }))).toThrow(/additional properties "default"/);
  });

  it('rejects related ids that are not positive integers, and malformed errors', () => {
    expect(check('/products/1/related', [2, 0])).toThrow(/\/1 must be >= 1/);
    expect(check('/products/1/related', ['2'])).toThrow(/\/0 must be integer/);
    expect(check('/products/1', { error: 'x', statusCode: 404 }, 404)).toThrow(/additional properties "statusCode"/);
    expect(check('/products/1', { message: 'x' }, 400)).toThrow(/required property 'error'/);
  });

  it('rejects undocumented statuses, methods and paths, and a body on 204', () => {
    expect(check('/products/1', product, 201)).toThrow(/status 201 is not documented \(documented: 200, 304, 400, 401, 404, 429, 500, 503\)/);
    expect(check('/products', [], 404)).toThrow(/status 404 is not documented/);
    expect(check('/products/1', {}, 200, 'PATCH')).toThrow(/PATCH \/products\/\{product_id\} is not documented/);
    expect(check('/products/1/photos', [])).toThrow(/no path in the document matches/);
    expect(check('/products/1', { ok: true }, 204, 'DELETE')).toThrow(/no body is documented/);
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/products', status: 200, body: [], contentType: 'text/html' }, document)).toThrow(/content type text\/html is not documented/);
  });
});
