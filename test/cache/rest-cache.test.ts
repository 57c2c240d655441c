// The response cache on the legacy REST routes, against real Postgres and a
// real Redis: hits cost no SQL, every write shows up at once on every instance,
// unrelated entries stay cached, and Redis going away never fails a request.
import { HEARD_MARGIN_MS } from '../../src/cache/response-cache.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCatalogue, createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { cacheConnected, redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { until } from '../support/wait.ts';

const catalogue = useTestCatalogue();

async function get(client: TestClient, url: string) {
  const response = await client.app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.body, cache: response.headers['x-cache'], sql: Number(response.headers['x-sql-statements']) };
}

async function put(client: TestClient, id: number, body: unknown) {
  const response = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(response.statusCode).toBe(200);
}

describe('in-process cache (no REDIS_URL)', () => {
  const client = useTestClient(catalogue, { env: { CACHE: 'on' } });

  it('serves a repeated read from the cache, with no SQL', async () => {
    const first = await get(client, '/products/2/styles');
    expect(first).toMatchObject({ status: 200, cache: 'miss', sql: 1 });
    const second = await get(client, '/products/2/styles');
    expect(second).toMatchObject({ status: 200, cache: 'hit', sql: 0 });
    expect(second.body).toBe(first.body);
  });

  it('answers parameters the route does not declare (?cb=…) from the same entry, byte for byte: no cache-busting', async () => {
    const first = await get(client, '/products/5/styles');
    expect(first).toMatchObject({ status: 200, cache: 'miss' });
    for (const url of ['/products/5/styles?cb=1', '/products/5/styles?cb=2&x=y', '/products/5/styles?']) {
      expect(await get(client, url), url).toEqual({ ...first, cache: 'hit', sql: 0 });
    }
    const page = await get(client, '/products?page=2&count=3');
    expect(page).toMatchObject({ status: 200, cache: 'miss' });
    for (const url of ['/products?count=3&page=2', '/products?page=2&count=3&cb=9', '/products?cb=9&count=3&page=2&cb=10']) {
      expect(await get(client, url), url).toEqual({ ...page, cache: 'hit', sql: 0 });
    }
    // What the route declares still tells answers apart.
    expect(await get(client, '/products?page=3&count=3&cb=9')).toMatchObject({ status: 200, cache: 'miss' });
  });

  it('drops exactly the entries of a product that changed, and keeps the others', async () => {
    await get(client, '/products/3');
    await get(client, '/products/4');
    await put(client, 3, { name: 'Renamed Three' });
    const changed = await get(client, '/products/3');
    expect(changed.cache).toBe('miss');
    expect(JSON.parse(changed.body).name).toBe('Renamed Three');
    expect((await get(client, '/products/4')).cache).toBe('hit');
  });

  it('shows a created product in listings at once, and forgets a cached 404', async () => {
    const { n } = await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products');
    const lastPage = `/products?page=${Number(n) + 1}&count=1`;
    expect((await get(client, lastPage)).body).toBe('[]');
    const created = await client.app.inject({ method: 'POST', url: '/products', payload: JSON.stringify({ name: 'New', slogan: 's', description: 'd', category: 'Kicks', default_price: 10 }), headers: { 'content-type': 'application/json' } });
    const id = JSON.parse(created.body).id as number;
    expect(JSON.parse((await get(client, lastPage)).body)[0].id).toBe(id);
    // A 404 for an id is cached, and dropped when that product changes.
    await client.app.inject({ method: 'DELETE', url: `/products/${id}` });
    expect((await get(client, `/products/${id}`)).status).toBe(404);
    expect((await get(client, `/products/${id}`)).cache).toBe('hit');
  });

  it('runs concurrent misses for one key once (single flight)', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(client, '/products/7/related')));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.reduce((n, r) => n + r.sql, 0)).toBe(2); // product + related rows, once
  });
});

describe('in-process caches of two instances, with the change feed (CHANGE_FEED=on, no Redis)', () => {
  const env = { CACHE: 'on', CHANGE_FEED: 'on' };
  const a = useTestClient(catalogue, { env });
  const b = useTestClient(catalogue, { env });

  it('a write through A drops what B cached of that product, in B\'s own memory, once B hears it; other entries stay', async () => {
    await get(b, '/products/40');
    await get(b, '/products/41');
    expect((await get(b, '/products/40')).cache).toBe('hit');
    await put(a, 40, { name: 'Forty, via A' });
    // B hears the commit within milliseconds (docs/caching.md).
    const read = await until('B to drop product 40', async () => { const answer = await get(b, '/products/40'); return answer.cache !== 'hit' && answer; });
    expect(JSON.parse(read.body).name).toBe('Forty, via A');
    expect((await get(b, '/products/41')).cache).toBe('hit');
  });
});

describe.skipIf(!redisAvailable())('shared Redis cache, two instances', () => {
  let redis: TestRedis | undefined;
  let a: TestClient;
  let b: TestClient;
  beforeAll(async () => {
    redis = await startTestRedis();
    // Stored on the first miss (the doorkeeper, Redis's default, is test/cache/two-processes.test.ts's and response-cache.test.ts's).
    const env = { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `rest${Date.now()}:`, REDIS_TIMEOUT_MS: '200', CACHE_ADMISSION: 'first-miss' };
    a = await createTestClient(catalogue.db.url, { env });
    b = await createTestClient(catalogue.db.url, { env });
    // Both connected before the tests start.
    for (const client of [a, b]) await cacheConnected(client.server);
    // An instance does not serve entries read before its change feed started listening (plus a clock margin).
    await new Promise((r) => setTimeout(r, 2 * HEARD_MARGIN_MS));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('shares entries: what one instance stored, the other serves', async () => {
    expect((await get(a, '/products/11/styles')).cache).toBe('miss');
    // The store write is fire-and-forget: wait until A's entry is in Redis.
    await a.server.cache!.backgroundSettled();
    const fromB = await get(b, '/products/11/styles');
    expect(fromB).toMatchObject({ cache: 'hit', sql: 0 });
  });

  it('a REST write through one instance is seen at once through the other; unrelated entries stay cached', async () => {
    await get(b, '/products/12');
    await get(b, '/products/13');
    await b.server.cache!.backgroundSettled();
    expect((await get(b, '/products/12')).cache).toBe('hit');
    await put(a, 12, { slogan: 'Written through A' });
    const read = await get(b, '/products/12');
    expect(read.cache).toBe('miss');
    expect(JSON.parse(read.body).slogan).toBe('Written through A');
    expect((await get(b, '/products/13')).cache).toBe('hit');
  });

  it('a GraphQL mutation through one instance is seen at once through the other', async () => {
    await get(b, '/products/14');
    await b.server.cache!.backgroundSettled();
    const mutation = await a.post('mutation { updateProduct(id: "14", input: { defaultPrice: "77.70" }) { id } }');
    expect(mutation.status).toBe(200);
    expect(JSON.parse((await get(b, '/products/14')).body).default_price).toBe('77.70');
  });

  it('keeps answering from Postgres while Redis is down, never serves what changed meanwhile, and caches again when it is back', async () => {
    // B has product 20 cached before the outage.
    await get(b, '/products/20');
    await b.server.cache!.backgroundSettled();
    expect((await get(b, '/products/20')).cache).toBe('hit');
    await redis!.stop();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const response = await get(a, `/products/${20 + (i % 5)}/styles`);
      expect(response.status).toBe(200);
      expect(response.cache).toBe('miss');
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(a.server.cache!.stats.errors).toBeGreaterThan(0);
    // A write while Redis is down cannot invalidate yet: it is retried until Redis is back.
    await put(a, 20, { name: 'Changed while Redis was down' });
    expect(a.server.cache!.pendingInvalidations).toBeGreaterThan(0);
    await redis!.start();
    await until('A\'s invalidations retried', () => a.server.cache!.pendingInvalidations === 0);
    expect(JSON.parse((await get(b, '/products/20')).body).name).toBe('Changed while Redis was down');
    // And caching works again, without a restart.
    await get(a, '/products/21/styles');
    await a.server.cache!.backgroundSettled();
    expect((await get(a, '/products/21/styles')).cache).toBe('hit');
  });
});

describe.skipIf(!redisAvailable())('Redis down when the server starts', () => {
  it('answers every request from Postgres, then caches once Redis comes up, without a restart', async () => {
    const redis = await startTestRedis();
    await redis.stop();
    const client = await createTestClient(catalogue.db.url, { env: { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `down${Date.now()}:`, REDIS_TIMEOUT_MS: '100', CACHE_ADMISSION: 'first-miss' } });
    try {
      const started = Date.now();
      for (let i = 0; i < 10; i++) {
        const response = await get(client, '/products/30/styles');
        expect(response.status).toBe(200);
        expect(response.cache).toBe('miss');
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(client.server.cache!.stats.errors).toBeGreaterThan(0);
      const health = JSON.parse((await client.app.inject({ method: 'GET', url: '/healthz' })).body);
      expect(health.cache.errors).toBeGreaterThan(0);
      await redis.start();
      await cacheConnected(client.server);
      await get(client, '/products/30/styles');
      await client.server.cache!.backgroundSettled();
      expect((await get(client, '/products/30/styles')).cache).toBe('hit');
    } finally {
      await client.close();
      await redis.stop();
    }
  });
});

describe.skipIf(!redisAvailable())('listing pages across instances (more than one page anchor)', () => {
  it('a deletion through one instance shifts the other instance\'s pages at once', async () => {
    // 2,000 products: page anchors at ids 1 and 1001, so a deletion below 1001 moves the second anchor's position.
    const big = await createTestCatalogue({ scale: 0.002 });
    const redis = await startTestRedis();
    const env = { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `pages${Date.now()}:`, CACHE_ADMISSION: 'first-miss' };
    const a = await createTestClient(big.db.url, { env });
    const b = await createTestClient(big.db.url, { env });
    try {
      for (const client of [a, b]) await cacheConnected(client.server);
      const page = '/products?page=1001&count=1'; // the 1,001st product
      const before = JSON.parse((await get(b, page)).body)[0].id as number;
      expect((await a.app.inject({ method: 'DELETE', url: '/products/5' })).statusCode).toBe(204);
      const { id: expected } = await big.direct.one<{ id: number }>('SELECT id FROM products ORDER BY id OFFSET 1000 LIMIT 1');
      expect(expected).not.toBe(before);
      expect(JSON.parse((await get(b, page)).body)[0].id).toBe(expected);
    } finally {
      await a.close();
      await b.close();
      await redis.stop();
      await big.dispose();
    }
  });
});
