// The same response cache for GraphQL queries, shared by two instances on one
// Redis: hits cost no SQL, results are tagged with every product they show
// (related products included), and writes over GraphQL or REST through one
// instance are seen at once through the other.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { redisAvailable, redisReady, startTestRedis, type TestRedis } from '../support/redis.ts';
import { until } from '../support/wait.ts';

const RELATED = 'query Related($id: ID!) { product(id: $id) { id name related { id name } } }';
const DETAIL = 'query Detail($id: ID!) { product(id: $id) { id name defaultPrice } }';

async function query(client: TestClient, text: string, variables: Record<string, unknown>) {
  const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: JSON.stringify({ query: text, variables }), headers: { 'content-type': 'application/json' } });
  return { body: JSON.parse(response.body), cache: response.headers['x-cache'], sql: Number(response.headers['x-sql-statements']) };
}


describe.skipIf(!redisAvailable())('GraphQL response cache on a shared Redis', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let a: TestClient;
  let b: TestClient;
  let withRelated: { id: number; relatedId: number };
  let inspect: Redis;
  const prefix = `gql${Date.now()}:`;
  /** The GraphQL result entries in Redis. */
  const entries = async () => (await inspect.keys(`${prefix}r:gql:*`)).sort();
  /** Until a fire-and-forget save has landed: the entries differ from `before` */
  const saved = async (before: string[]) => {
    await until('a new entry in Redis', async () => JSON.stringify(await entries()) !== JSON.stringify(before));
  };
  /** Until both instances' fire-and-forget stores have been answered. */
  const settle = () => Promise.all([a.server.cache!.backgroundSettled(), b.server.cache!.backgroundSettled()]);

  /** A query whose result is saved (a miss): returns once the save has landed in Redis. */
  const queryStored = async (client: TestClient, text: string, variables: Record<string, unknown>) => {
    const before = await entries();
    const result = await query(client, text, variables);
    await saved(before);
    return result;
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    inspect = new Redis(redis.url);
    // Stored on the first miss (the doorkeeper, Redis's default, is test/cache/two-processes.test.ts's and response-cache.test.ts's).
    const env = { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: prefix, CACHE_ADMISSION: 'first-miss' };
    a = await createTestClient(catalogue.db.url, { env });
    b = await createTestClient(catalogue.db.url, { env });
    for (const client of [a, b]) {
      const store = (client.server.cache as unknown as { store: { client: { status: string }; checkGeneration(): Promise<number> } }).store;
      await redisReady(store.client);
      // Redis's invalidation counter started now, not by the first local-tier
      // hit: started between another miss's lookup and its store, it refuses
      // that store (rightly: an invalidation could have come between), and a
      // test waiting for the entry waited in vain (a CI run, twice).
      await store.checkGeneration();
    }
    const row = await catalogue.direct.one<{ id: number; related: number }>(
      'SELECT current_product_id AS id, min(related_product_id) AS related FROM related WHERE related_product_id <> current_product_id GROUP BY current_product_id ORDER BY current_product_id LIMIT 1');
    withRelated = { id: row.id, relatedId: row.related };
  });
  afterAll(async () => {
    inspect?.disconnect();
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('serves a repeated query from the cache, with no SQL, on either instance', async () => {
    const first = await queryStored(a, DETAIL, { id: '3' });
    expect(first).toMatchObject({ cache: 'miss', sql: 1 });
    const again = await query(b, DETAIL, { id: '3' });
    expect(again).toMatchObject({ cache: 'hit', sql: 0 });
    expect(again.body).toEqual(first.body);
  });

  it('keys a result on the variables its operation declares: undeclared ones (padding) make no new entry', async () => {
    const before = await entries();
    expect(await query(a, DETAIL, { id: '9' })).toMatchObject({ cache: 'miss' });
    await saved(before); // (a fixed 50 ms wait was too short once, in a CI run)
    const stored = await entries();
    expect(stored).toHaveLength(before.length + 1);
    const padded = await query(b, DETAIL, { id: '9', pad: 'x'.repeat(10_000) });
    expect(padded).toMatchObject({ cache: 'hit', sql: 0 });
    await settle();
    expect(await entries()).toEqual(stored);
    expect(await query(b, DETAIL, { id: '10', pad: 'y' })).toMatchObject({ cache: 'miss' });
  });

  it('a mutation through one instance is seen at once through the other; unrelated results stay cached', async () => {
    await queryStored(b, DETAIL, { id: '4' });
    await queryStored(b, DETAIL, { id: '6' });
    await a.post('mutation { updateProduct(id: "4", input: { name: "Four, updated" }) { id } }');
    const read = await query(b, DETAIL, { id: '4' });
    expect(read.cache).toBe('miss');
    expect(read.body.data.product.name).toBe('Four, updated');
    expect((await query(b, DETAIL, { id: '6' })).cache).toBe('hit');
  });

  it('a REST write invalidates GraphQL results too (one cache layer)', async () => {
    await query(b, DETAIL, { id: '8' });
    await settle();
    const response = await a.app.inject({ method: 'PUT', url: '/products/8', payload: JSON.stringify({ default_price: '8.88' }), headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect((await query(b, DETAIL, { id: '8' })).body.data.product.defaultPrice).toBe('8.88');
  });

  it('a change to a related product drops the results that show it', async () => {
    const before = await queryStored(b, RELATED, { id: String(withRelated.id) });
    expect(before.body.data.product.related.map((p: { id: string }) => p.id)).toContain(String(withRelated.relatedId));
    expect((await query(b, RELATED, { id: String(withRelated.id) })).cache).toBe('hit');
    await a.post(`mutation { updateProduct(id: "${withRelated.relatedId}", input: { name: "Related, renamed" }) { id } }`);
    const after = await query(b, RELATED, { id: String(withRelated.id) });
    expect(after.cache).toBe('miss');
    expect(after.body.data.product.related.find((p: { id: string }) => p.id === String(withRelated.relatedId)).name).toBe('Related, renamed');
  });

  it('never caches mutations or results with errors', async () => {
    const bad = await query(a, DETAIL, { id: 'abc' });
    expect(bad.body.errors).toBeDefined();
    expect((await query(a, DETAIL, { id: 'abc' })).cache).not.toBe('hit');
  });
});

describe('GraphQL single flight (in-process cache)', () => {
  const catalogue = useTestCatalogue();
  const client = useTestClient(catalogue, { env: { CACHE: 'on' } });

  it('runs concurrent identical queries once: one reaches Postgres, the others share its result', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => query(client, RELATED, { id: '9' })));
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(responses.filter((r) => r.cache === 'miss')).toHaveLength(1);
    const statements = responses.reduce((n, r) => n + r.sql, 0);
    expect(statements).toBe(responses.find((r) => r.cache === 'miss')!.sql);
  });

  it('an operation name that names no operation is a 400, not a crash of the cache (found by the fuzz tests)', async () => {
    const response = await client.postRaw(JSON.stringify({ query: 'query Detail { product(id: "1") { id } }', operationName: 'Other' }));
    expect(response.status, response.raw).toBe(400);
    expect(response.body.errors?.[0]).toMatchObject({ message: 'Unknown operation named "Other".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } });
  });
});
