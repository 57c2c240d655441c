// API keys over HTTP: writes need a valid, unrevoked key (REST and GraphQL
// answer 401 with WWW-Authenticate otherwise), reads need one only with
// API_KEYS_FOR_READS=required, a presented key that is wrong is refused even
// for reads, and revocation takes effect once the lookup cache expires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/key-store.ts';
import { connectDatabase, type Database } from '../../src/db/pool/pool.ts';
import { createTestApiKey, createTestCatalogue, createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import { until } from '../support/wait.ts';

const catalogue = useTestCatalogue();
let database: Database;
let store: ApiKeyStore;

beforeAll(async () => {
  database = connectDatabase(catalogue.db.url, { poolSize: 1 });
  store = new ApiKeyStore(database);
});
afterAll(async () => {
  await store?.close();
  await database?.close();
});

const NEW_PRODUCT = { name: 'Keyed Tee', slogan: 's', description: 'd', category: 'Shirts', default_price: '10.00' };
const UPDATE_MUTATION = 'mutation { updateProduct(id: "3", input: { slogan: "changed with a key" }) { id slogan } }';

/** A REST request with exactly these headers (no default key). */
async function rest(client: TestClient, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: unknown) {
  const response = await client.injectAnonymous({
    method, url, headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
  assertMatchesOpenApi({ method, path: url, status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined });
  return { status: response.statusCode, headers: response.headers, json: response.body ? JSON.parse(response.body) : undefined };
}

async function graphql(client: TestClient, query: string, headers: Record<string, string> = {}) {
  const response = await client.injectAnonymous({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ query }) });
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } };
}

const productCount = async () => Number((await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products')).n);

describe('with API_KEYS_FOR_READS=optional (the default)', () => {
  const client = useTestClient(catalogue);
  let key: string;
  beforeAll(async () => {
    key = await createTestApiKey(catalogue.db.url, { name: 'writer' });
  });

  it('refuses REST writes without a key: 401, the legacy error shape, WWW-Authenticate, nothing written', async () => {
    const before = await productCount();
    for (const [method, url, payload] of [['POST', '/products', NEW_PRODUCT], ['PUT', '/products/3', { name: 'x' }], ['DELETE', '/products/3', undefined]] as const) {
      const response = await rest(client, method, url, {}, payload);
      expect(response.status, `${method} ${url}`).toBe(401);
      expect(response.json).toEqual({ error: 'writes need an API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"' });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="catalogue"');
    }
    expect(await productCount()).toBe(before);
    expect((await rest(client, 'GET', '/products/3')).json.name).not.toBe('x');
  });

  it('accepts REST writes with a valid key, as a Bearer token or in x-api-key', async () => {
    const created = await rest(client, 'POST', '/products', { authorization: `Bearer ${key}` }, NEW_PRODUCT);
    expect(created.status).toBe(201);
    expect(created.json.name).toBe('Keyed Tee');
    const updated = await rest(client, 'PUT', `/products/${created.json.id}`, { 'x-api-key': key }, { name: 'Keyed Tee 2' });
    expect(updated.status).toBe(200);
    expect(updated.json.name).toBe('Keyed Tee 2');
    expect((await rest(client, 'DELETE', `/products/${created.json.id}`, { authorization: `bearer ${key}` })).status).toBe(204);
  });

  it('refuses GraphQL mutations without a key: HTTP 401, UNAUTHENTICATED, nothing written', async () => {
    const response = await graphql(client, UPDATE_MUTATION);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="catalogue"');
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([{ message: 'writes need an API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"', extensions: { code: 'UNAUTHENTICATED' } }]);
    expect((await catalogue.direct.one<{ slogan: string }>('SELECT slogan FROM products WHERE id = 3')).slogan).not.toBe('changed with a key');
  });

  it('runs GraphQL mutations with a valid key', async () => {
    const response = await graphql(client, UPDATE_MUTATION, { authorization: `Bearer ${key}` });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { updateProduct: { id: '3', slogan: 'changed with a key' } } });
  });

  it('serves anonymous reads, REST and GraphQL', async () => {
    expect((await rest(client, 'GET', '/products/3')).status).toBe(200);
    const response = await graphql(client, '{ product(id: "3") { id } }');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { product: { id: '3' } } });
  });

  it('refuses two different keys in Authorization and x-api-key: 400 naming both headers, nothing written; the same key in both is served', async () => {
    // Issue 32: one silently won. Both keys valid here: the refusal is about the disagreement.
    const other = await createTestApiKey(catalogue.db.url, { name: 'the other key' });
    const message = 'Authorization (Bearer) and x-api-key carry different API keys: send one key, in either header or the same in both';
    for (const headers of [{ authorization: `Bearer ${key}`, 'x-api-key': other }, { authorization: `bearer ${other}`, 'x-api-key': `cat_${'A'.repeat(43)}` }]) {
      for (const [method, url, payload] of [['GET', '/products/3', undefined], ['PUT', '/products/3', { name: 'never written' }]] as const) {
        const response = await rest(client, method, url, headers, payload);
        expect([method, response.status, response.json]).toEqual([method, 400, { error: message }]);
      }
      for (const query of ['{ product(id: "3") { id } }', 'mutation { updateProduct(id: "3", input: { name: "never written" }) { id } }']) {
        const response = await graphql(client, query, headers);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
      }
      const get = await client.injectAnonymous({ method: 'GET', url: '/graphql?query=%7B__typename%7D', headers: { ...headers, accept: 'application/json' } });
      expect(get.statusCode).toBe(400);
    }
    expect((await rest(client, 'GET', '/products/3')).json.name).not.toBe('never written');
    // The same key in both, and a scheme that is not ours beside a key: served.
    const same = await rest(client, 'PUT', '/products/3', { authorization: `Bearer ${key}`, 'x-api-key': ` ${key} ` }, { slogan: 'one key, twice' });
    expect(same.status).toBe(200);
    expect((await graphql(client, UPDATE_MUTATION, { authorization: `Bearer ${other}`, 'x-api-key': other })).status).toBe(200);
    expect((await rest(client, 'GET', '/products/3', { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': key })).status).toBe(200);
  });

  it('refuses a key it does not know, even for a read (401 invalid_token)', async () => {
    const wrong = `${key.slice(0, -4)}AAAA`;
    const read = await rest(client, 'GET', '/products/3', { authorization: `Bearer ${wrong}` });
    expect(read.status).toBe(401);
    expect(read.json).toEqual({ error: 'the API key is not valid (unknown or revoked)' });
    expect(read.headers['www-authenticate']).toBe('Bearer realm="catalogue", error="invalid_token"');
    const query = await graphql(client, '{ product(id: "3") { id } }', { 'x-api-key': wrong });
    expect(query.status).toBe(401);
    expect(query.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('with API_KEYS_FOR_READS=required', () => {
  const client = useTestClient(catalogue, { env: { API_KEYS_FOR_READS: 'required' } });
  let key: string;
  beforeAll(async () => {
    key = await createTestApiKey(catalogue.db.url, { name: 'reader' });
  });

  it('refuses anonymous reads with 401 and serves them with a key', async () => {
    const anonymous = await rest(client, 'GET', '/products/3/styles');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error).toMatch(/^this server requires an API key/);
    expect((await rest(client, 'GET', '/products/3/styles', { authorization: `Bearer ${key}` })).status).toBe(200);

    const query = await graphql(client, '{ product(id: "3") { id } }');
    expect(query.status).toBe(401);
    expect(query.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await graphql(client, '{ product(id: "3") { id } }', { authorization: `Bearer ${key}` })).body).toEqual({ data: { product: { id: '3' } } });
  });

  it('still serves the IDE page and the health check without a key', async () => {
    const ide = await client.injectAnonymous({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(ide.statusCode).toBe(200);
    expect((await client.injectAnonymous({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('revocation', () => {
  it('takes effect once the lookup cache (API_KEY_CACHE_SECONDS) expires', async () => {
    const client = await createTestClient(catalogue.db.url, { env: { API_KEY_CACHE_SECONDS: '1' } });
    try {
      const { key, secret } = await store.create('short-lived', null);
      const write = () => rest(client, 'PUT', '/products/4', { authorization: `Bearer ${secret}` }, { slogan: `at ${Date.now()}` });
      expect((await write()).status).toBe(200);
      await store.revoke(key.id);
      // Still remembered as valid for up to a second: the documented price of not asking Postgres every time.
      expect((await write()).status).toBe(200);
      // Then refused, once the cached answer expires (API_KEY_CACHE_SECONDS).
      const refused = await until('the revoked key refused', async () => { const answer = await write(); return answer.status !== 200 && answer; }, { everyMs: 100 });
      expect(refused.status).toBe(401);
      expect(refused.json).toEqual({ error: 'the API key is not valid (unknown or revoked)' });
    } finally {
      await client.close();
    }
  });

  it('with API_KEY_CACHE_SECONDS=0 takes effect on the next request', async () => {
    const client = await createTestClient(catalogue.db.url, { env: { API_KEY_CACHE_SECONDS: '0' } });
    try {
      const { key, secret } = await store.create('revoked at once', null);
      expect((await graphql(client, UPDATE_MUTATION, { authorization: `Bearer ${secret}` })).status).toBe(200);
      await store.revoke(key.id);
      const refused = await graphql(client, UPDATE_MUTATION, { authorization: `Bearer ${secret}` });
      expect(refused.status).toBe(401);
      expect(refused.body.errors?.[0]?.message).toBe('the API key is not valid (unknown or revoked)');
    } finally {
      await client.close();
    }
  });
});

describe('a key that cannot be checked', () => {
  it('is a 503 with Retry-After (never served as anonymous, never a 500 with a database message)', async () => {
    const { db } = await createTestCatalogue({ scale: 0.0001 });
    const client = await createTestClient(db.url, { env: { API_KEY_CACHE_SECONDS: '0' } });
    try {
      await db.drop();
      const read = await client.app.inject({ method: 'GET', url: '/products/1' });
      expect(read.statusCode).toBe(503);
      expect(read.headers['retry-after']).toBe('1');
      expect(JSON.parse(read.body)).toEqual({ error: 'the API key cannot be checked right now; try again shortly' });
      const query = await client.post('{ product(id: "1") { id } }');
      expect(query.status).toBe(503);
      expect(query.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await client.close();
    }
  });
});
