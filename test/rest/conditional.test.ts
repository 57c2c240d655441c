// Optimistic concurrency: a product's version is its strong ETag (REST) and
// its `version` field (GraphQL); conditional writes apply only while the
// product is still at the version the client read, so no update is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCatalogue, createTestClient, EXECUTORS, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';

let catalogue: TestCatalogue;
let client: TestClient;
beforeAll(async () => {
  catalogue = await createTestCatalogue();
  // With the response cache on: the ETag must travel with a cached response.
  client = await createTestClient(catalogue.db.url, { env: { CACHE: 'on' } });
});
afterAll(async () => {
  await client?.close();
  await catalogue?.dispose();
});

const body = { name: 'Conditional', slogan: 's', description: 'd', category: 'Pants', default_price: '10.00' };

async function create(): Promise<{ id: number; etag: string }> {
  const response = await client.app.inject({ method: 'POST', url: '/products', payload: body });
  expect(response.statusCode).toBe(201);
  return { id: JSON.parse(response.body).id, etag: response.headers.etag as string };
}

const get = (id: number, headers: Record<string, string> = {}) => client.app.inject({ method: 'GET', url: `/products/${id}`, headers });
const put = (id: number, payload: unknown, headers: Record<string, string> = {}) => client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: payload as object, headers });

describe('REST: ETag and If-Match', () => {
  it('every representation of a product carries the same strong ETag, which is its version and moves at every write', async () => {
    const { id, etag } = await create();
    expect(etag).toMatch(/^"\d+"$/);
    const [miss, hit] = [await get(id), await get(id)];
    expect(hit.headers['x-cache']).toBe('hit');
    expect(miss.headers.etag).toBe(etag);
    expect(hit.headers.etag).toBe(etag);
    const { version } = await catalogue.direct.one<{ version: string }>('SELECT version::text AS version FROM products WHERE id = $1', [id]);
    expect(etag).toBe(`"${version}"`);
    // A features-only change is a change of the representation: a new tag.
    const updated = await put(id, { features: [{ feature: 'Fabric', value: 'Wool' }] });
    expect(updated.statusCode).toBe(200);
    expect(updated.headers.etag).not.toBe(etag);
    expect((await get(id)).headers.etag).toBe(updated.headers.etag);
  });

  it('If-Match with the current ETag applies; with a stale one it is 412 with the current ETag, and nothing is written', async () => {
    const { id, etag } = await create();
    const first = await put(id, { name: 'First writer' }, { 'if-match': etag });
    expect(first.statusCode).toBe(200);
    const second = await put(id, { name: 'Second writer', features: [{ feature: 'Lost', value: null }] }, { 'if-match': etag });
    expect(second.statusCode).toBe(412);
    expect(second.headers.etag).toBe(first.headers.etag);
    const current = (first.headers.etag as string).slice(1, -1);
    expect(JSON.parse(second.body)).toEqual({ error: `product ${id} has changed since version "${etag.slice(1, -1)}": it is now at version "${current}"; read it again and reapply your change` });
    expect(JSON.parse((await get(id)).body)).toMatchObject({ name: 'First writer', features: [] });
    const stale = await client.app.inject({ method: 'DELETE', url: `/products/${id}`, headers: { 'if-match': etag } });
    expect(stale.statusCode).toBe(412);
    expect((await get(id)).statusCode).toBe(200);
    expect((await client.app.inject({ method: 'DELETE', url: `/products/${id}`, headers: { 'if-match': first.headers.etag as string } })).statusCode).toBe(204);
  });

  it('If-Match lists, "*", and weak tags (which never match a strong comparison); a malformed header is a 400', async () => {
    const { id, etag } = await create();
    expect((await put(id, { slogan: 'listed' }, { 'if-match': `"1", ${etag}` })).statusCode).toBe(200);
    const { etag: now } = { etag: (await get(id)).headers.etag as string };
    expect((await put(id, { slogan: 'weak' }, { 'if-match': `W/${now}` })).statusCode).toBe(412);
    expect((await put(id, { slogan: 'any' }, { 'if-match': '*' })).statusCode).toBe(200);
    // Empty list elements are ignored (RFC 9110 5.6.1.2); a long list is not echoed back whole.
    const current = (await get(id)).headers.etag as string;
    expect((await put(id, { slogan: 'commas' }, { 'if-match': `, "1",, ${current} ,` })).statusCode).toBe(200);
    const many = await put(id, { slogan: 'many' }, { 'if-match': Array.from({ length: 2_000 }, (_, i) => `"x${i}"`).join(', ') });
    expect(many.statusCode).toBe(412);
    expect(JSON.parse(many.body).error).toMatch(/since version "x0", "x1", "x2" and 1997 more: it is now at version/);
    const weakOnly = await put(id, { slogan: 'weak only' }, { 'if-match': 'W/"1"' });
    expect(JSON.parse(weakOnly.body).error).toMatch(/since the version you sent \(weak tags never match\)/);
    for (const bad of ['123', '"unterminated', '"a" "b"']) {
      const response = await put(id, { slogan: 'bad' }, { 'if-match': bad });
      expect(response.statusCode, bad).toBe(400);
      expect(JSON.parse(response.body).error).toMatch(/^If-Match: must be "\*" or a list of entity tags/);
    }
    // "*" on a product that does not exist: 404, as without a condition.
    expect((await put(99_999_999, { slogan: 'x' }, { 'if-match': '*' })).statusCode).toBe(404);
  });

  it('If-None-Match: 304 without a body for the current ETag (cached or not), 200 after a change', async () => {
    const { id, etag } = await create();
    for (let i = 0; i < 2; i++) {
      const response = await get(id, { 'if-none-match': etag });
      expect(response.statusCode).toBe(304);
      expect(response.body).toBe('');
      expect(response.headers.etag).toBe(etag);
    }
    expect((await get(id, { 'if-none-match': `"1", W/${etag}` })).statusCode).toBe(304);
    await put(id, { name: 'Changed' });
    expect((await get(id, { 'if-none-match': etag })).statusCode).toBe(200);
  });

  it('WRITES_REQUIRE_IF_MATCH=on: PUT and DELETE without If-Match are 428, and write nothing', async () => {
    const strict = await createTestClient(catalogue.db.url, { env: { WRITES_REQUIRE_IF_MATCH: 'on' } });
    try {
      const { id, etag } = await create();
      const refused = await strict.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name: 'Unconditional' } });
      expect(refused.statusCode).toBe(428);
      expect(JSON.parse(refused.body).error).toBe('If-Match is required: send the ETag of the product as you last read it (GET /products/:product_id), or "*"');
      expect((await strict.app.inject({ method: 'DELETE', url: `/products/${id}` })).statusCode).toBe(428);
      expect(JSON.parse((await get(id)).body).name).toBe('Conditional');
      expect((await strict.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name: 'Conditional ok' }, headers: { 'if-match': etag } })).statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe.each(EXECUTORS)('GraphQL: version and expectedVersion ($engine)', ({ env }) => {
  let graphql: TestClient;
  beforeAll(async () => {
    graphql = await createTestClient(catalogue.db.url, { env });
  });
  afterAll(async () => {
    await graphql?.close();
  });

  const UPDATE = 'mutation ($id: ID!, $v: String, $name: String) { updateProduct(id: $id, input: { name: $name }, expectedVersion: $v) { id name version } }';
  const DELETE = 'mutation ($id: ID!, $v: String) { deleteProduct(id: $id, expectedVersion: $v) }';

  it('version equals the REST ETag; a stale expectedVersion is CONFLICT (beside null data, HTTP 200) with the current version, and writes nothing', async () => {
    const { id, etag } = await create();
    const read = await graphql.post<{ product: { version: string } }>(`{ product(id: "${id}") { version } }`);
    expect(`"${read.body.data?.product.version}"`).toBe(etag);
    const version = read.body.data!.product.version;
    const applied = await graphql.post<{ updateProduct: { version: string } }>(UPDATE, { id: String(id), v: version, name: 'GraphQL first' });
    expect(applied.body.errors).toBeUndefined();
    const next = applied.body.data!.updateProduct.version;
    expect(next).not.toBe(version);
    const lost = await graphql.post(UPDATE, { id: String(id), v: version, name: 'GraphQL lost' });
    expect(lost.status).toBe(200);
    expect(lost.body.data).toBeNull();
    expect(lost.body.errors?.[0]).toMatchObject({ extensions: { code: 'CONFLICT', currentVersion: next }, message: expect.stringContaining(`it is now at version "${next}"`) });
    expect((await graphql.post(DELETE, { id: String(id), v: version })).body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(JSON.parse((await get(id)).body).name).toBe('GraphQL first');
    const gone = await graphql.post(DELETE, { id: String(id), v: next });
    expect(gone.body).toEqual({ data: { deleteProduct: String(id) } });
  });

  it.each(['garbage', '"1"', '', '01', '-5', ' 7'])('an expectedVersion that cannot be a version (%j) is BAD_USER_INPUT naming it (a malformed If-Match is a 400), not CONFLICT, and writes nothing', async (bad) => {
    const { id } = await create();
    const before = (await get(id)).body;
    for (const [query, variables] of [[UPDATE, { id: String(id), v: bad, name: 'never' }], [DELETE, { id: String(id), v: bad }]] as const) {
      const refused = await graphql.post(query, variables);
      // A field's error: HTTP 200 beside null data (src/graphql/http-status.ts).
      expect(refused.status).toBe(200);
      expect(refused.body.data).toBeNull();
      expect(refused.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'expectedVersion' }, message: expect.stringMatching(/^expectedVersion: /) });
    }
    expect((await get(id)).body).toBe(before);
  });

  it('without expectedVersion the write applies as before', async () => {
    const { id } = await create();
    const applied = await graphql.post<{ updateProduct: { name: string } }>(UPDATE, { id: String(id), name: 'Unconditional' });
    expect(applied.body.data?.updateProduct.name).toBe('Unconditional');
  });
});
