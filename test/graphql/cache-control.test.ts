// Cache-Control from the SDL's hints (bounding the configured max-age and
// s-maxage; by default every GET answer is `no-cache`, see
// test/http/http-caching.test.ts), and automatic persisted queries: a
// hash-only GET that a CDN can cache, shared between instances through Redis.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, EXECUTORS, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const catalogue = useTestCatalogue();

async function post(client: TestClient, body: unknown) {
  const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: response.statusCode, cacheControl: response.headers['cache-control'], body: JSON.parse(response.body) };
}

async function get(client: TestClient, query: string) {
  const response = await client.app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent(query)}`, headers: { accept: 'application/json' } });
  return { status: response.statusCode, cacheControl: response.headers['cache-control'], body: JSON.parse(response.body) };
}

describe.each(EXECUTORS)('Cache-Control from SDL hints with $engine', ({ env }) => {
  // Browsers up to 45 s, CDNs up to 600 s: the hints (60, 30, 10) cut both.
  const client = useTestClient(catalogue, { env: { ...env, HTTP_CACHE_MAX_AGE_SECONDS: '45', HTTP_CACHE_SHARED_MAX_AGE_SECONDS: '600' } });

  it.each([
    ['{ product(id: "1") { name } }', 'public, max-age=45, s-maxage=60'],
    ['{ product(id: "1") { name styles { photos { url } } } }', 'public, max-age=45, s-maxage=60'],
    ['{ product(id: "1") { name styles { skus { size quantity } } } }', 'public, max-age=10, s-maxage=10'],
    ['{ products(count: 2) { id } }', 'public, max-age=30, s-maxage=30'],
    ['{ __typename }', 'no-cache'],
  ])('GET %s → %s', async (query, expected) => {
    const response = await get(client, query);
    expect(response.status).toBe(200);
    expect(response.cacheControl).toBe(expected);
  });

  it('a POST is never reusable (only GET answers are)', async () => {
    expect((await post(client, { query: '{ product(id: "1") { name } }' })).cacheControl).toBe('no-store');
  });

  it('never lets a mutation or an error be cached', async () => {
    expect((await post(client, { query: 'mutation { deleteProduct(id: "999999") }' })).cacheControl).toBe('no-store');
    expect((await post(client, { query: '{ product(id: "abc") { name } }' })).cacheControl).toBe('no-store');
  });
});

const QUERY = 'query Name($id: ID!) { product(id: $id) { id name } }';
const HASH = crypto.createHash('sha256').update(QUERY).digest('hex');
const hashOnlyGet = (client: TestClient, id: string) => client.app.inject({
  method: 'GET',
  url: `/graphql?operationName=Name&variables=${encodeURIComponent(JSON.stringify({ id }))}&extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }))}`,
});

describe('automatic persisted queries', () => {
  it('a hash-only GET asks for the query once, then works and is CDN-cacheable', async () => {
    const client = await createTestClient(catalogue.db.url);
    try {
      const unknown = await hashOnlyGet(client, '2');
      expect(JSON.parse(unknown.body).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      const registered = await post(client, { query: QUERY, variables: { id: '2' }, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } });
      expect(registered.body.data.product.id).toBe('2');
      const response = await hashOnlyGet(client, '2');
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body).data.product.id).toBe('2');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers.etag).toMatch(/^"[\w-]+"$/);
    } finally {
      await client.close();
    }
  });

  describe.skipIf(!redisAvailable())('in Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('a query registered through one instance is known to the other', async () => {
      const env = { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `apq${Date.now()}:` };
      const a = await createTestClient(catalogue.db.url, { env });
      const b = await createTestClient(catalogue.db.url, { env });
      try {
        for (const client of [a, b]) {
          const store = (client.server.cache as unknown as { store: { client: { status: string } } }).store;
          for (let i = 0; i < 100 && store.client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
        }
        await post(a, { query: QUERY, variables: { id: '3' }, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } });
        const response = await hashOnlyGet(b, '3');
        expect(JSON.parse(response.body).data.product.id).toBe('3');
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
