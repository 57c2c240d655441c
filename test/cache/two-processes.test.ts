// Two real server processes (`node src/main.ts`) on one Postgres and one
// Redis: a write through one is read back at once through the other, over
// REST and GraphQL; unrelated entries stay cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';

const startProcess = (env: Record<string, string>) => startApiProcess(env, { health: (health) => health.cache?.store === 'redis' });

describe.skipIf(!redisAvailable())('two server processes on one Redis', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let a: ApiProcess;
  let b: ApiProcess;
  let authorization: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    const env = { DATABASE_URL: catalogue.db.url, REDIS_URL: redis.url, CACHE: 'on', CACHE_PREFIX: `proc${Date.now()}:` };
    [a, b] = await Promise.all([startProcess(env), startProcess(env)]);
  }, 60_000);
  afterAll(async () => {
    for (const server of [a, b]) server?.child.kill('SIGTERM');
    await redis?.stop();
  });

  const get = async (server: { url: string }, url: string) => {
    const response = await fetch(server.url + url);
    return { status: response.status, cache: response.headers.get('x-cache'), body: await response.json() as Record<string, unknown> };
  };
  const settle = () => new Promise((r) => setTimeout(r, 100));

  it('REST: a write through A is read back at once through B; an unrelated entry stays cached', async () => {
    await get(b, '/products/5');
    await get(b, '/products/6');
    await settle();
    expect((await get(b, '/products/5')).cache).toBe('hit');
    const put = await fetch(`${a.url}/products/5`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ name: 'Five, via A' }) });
    expect(put.status).toBe(200);
    const read = await get(b, '/products/5');
    expect(read.body.name).toBe('Five, via A');
    expect((await get(b, '/products/6')).cache).toBe('hit');
  });

  it('GraphQL: a mutation through A is read back at once through B', async () => {
    const query = (server: { url: string }, text: string) => fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ query: text }) }).then(async (r) => ({ cache: r.headers.get('x-cache'), body: await r.json() as { data: { product: { defaultPrice: string } } } }));
    await query(b, '{ product(id: "7") { defaultPrice } }');
    await settle();
    expect((await query(b, '{ product(id: "7") { defaultPrice } }')).cache).toBe('hit');
    await query(a, 'mutation { updateProduct(id: "7", input: { defaultPrice: "7.77" }) { id } }');
    const read = await query(b, '{ product(id: "7") { defaultPrice } }');
    expect(read.body.data.product.defaultPrice).toBe('7.77');
  });
});
