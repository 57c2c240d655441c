// Redis is a cache, never a dependency: with Redis stopped, or stalled so
// that every command times out, REST and GraphQL reads still answer 200 from
// Postgres, quickly, and never 5xx. (test/cache/rest-cache.test.ts covers
// REST with Redis down, invalidations while down, and Redis down at start.)
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, useTestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { cacheConnected, redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const REDIS_TIMEOUT_MS = 100;
const QUERY = '{ product(id: "3") { id name styles { name } } }';

describe.skipIf(!redisAvailable())('Redis faults fail open', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let client: TestClient;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = await createTestClient(catalogue.db.url, {
      nodeEnv: 'production',
      env: { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `faults${Date.now()}:`, REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS) },
    });
    await cacheConnected(client.server);
  });
  afterAll(async () => {
    await client?.close();
    await redis?.stop();
  });

  /** Reads through both APIs; every one must be a 200 from Postgres, each within `boundMs`. */
  async function readAll(boundMs: number): Promise<void> {
    for (const url of ['/products/3', '/products/3/styles', '/products?page=2&count=3']) {
      const started = performance.now();
      const response = await client.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(Number(response.headers['x-sql-statements']), url).toBeGreaterThan(0);
      expect(performance.now() - started, url).toBeLessThan(boundMs);
    }
    const started = performance.now();
    const query = await client.post(QUERY);
    expect(query.status).toBe(200);
    expect(query.body.errors).toBeUndefined();
    expect(query.body.data).toMatchObject({ product: { id: '3' } });
    expect(performance.now() - started).toBeLessThan(boundMs);
  }

  it('Redis stalled (every command times out): answers from Postgres within a few timeouts', async () => {
    const admin = new Redis(redis.url);
    const errorsBefore = client.server.cache!.stats.errors;
    try {
      await admin.call('CLIENT', 'PAUSE', '3000', 'ALL');
      await readAll(REDIS_TIMEOUT_MS * 10);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE').catch(() => {});
      admin.disconnect();
    }
    expect(client.server.cache!.stats.errors).toBeGreaterThan(errorsBefore);
  });

  it('Redis stopped: answers from Postgres, GraphQL included', async () => {
    await redis.stop();
    const errorsBefore = client.server.cache!.stats.errors;
    await readAll(1_000);
    expect(client.server.cache!.stats.errors).toBeGreaterThan(errorsBefore);
  });
});
