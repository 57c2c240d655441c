// Single flight across a write: two real server processes on one Redis and
// one Postgres (CACHE_ADMISSION=doorkeeper), B reading Postgres through a
// forwarder that delays every answer (a query runs at once, its rows arrive
// late), so a read B began is still running when a write through A is
// acknowledged. A request to B sent after the acknowledgement must not be
// given that read's answer (it showed the product before the write), and
// that read (a second sighting, stored without a lookup) is not stored.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';

describe.skipIf(!redisAvailable())('a read in flight when a write is acknowledged (two processes, one reading Postgres slowly)', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let a: ApiProcess;
  let b: ApiProcess;
  let proxy: TcpProxy;
  let authorization: string;
  let redisClient: Redis;
  const prefix = `slow${Date.now()}:`;

  beforeAll(async () => {
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    proxy = await TcpProxy.start(Number(new URL(catalogue.db.url).port), { answerDelayMs: 300 });
    redisClient = new Redis(redis.url);
    const env = { REDIS_URL: redis.url, CACHE: 'on', CACHE_PREFIX: prefix, CACHE_ADMISSION: 'doorkeeper', RATE_LIMIT: 'off' };
    const ready = { health: (health: Record<string, any>) => health.cache?.store === 'redis' && health.cache?.changeFeed === 'listening' };
    [a, b] = await Promise.all([startApiProcess({ ...env, DATABASE_URL: catalogue.db.url }, ready), startApiProcess({ ...env, DATABASE_URL: proxy.urlOf(catalogue.db.url) }, ready)]);
  });
  afterAll(async () => {
    for (const server of [a, b]) server?.child.kill('SIGTERM');
    await proxy?.close();
    redisClient?.disconnect();
    await redis?.stop();
  });

  it('a request to B sent after A acknowledged a write does not get the answer of a read B began before the write, nor is that read stored', async () => {
    const versionOf = async (response: Response) => { await response.arrayBuffer(); return { version: Number(JSON.parse(response.headers.get('etag')!)), cache: response.headers.get('x-cache') }; };
    let spanned = 0;
    // A busy machine may start B's read only after the write: then it shows the write, and the next product is tried.
    for (const id of [21, 22, 23, 24, 25]) {
      const read = () => fetch(`${b.url}/products/${id}`, { headers: { authorization } }).then(versionOf);
      await read(); // B's first sighting
      const first = read(); // its second: read from Postgres (slowly), to be stored
      await new Promise((r) => setTimeout(r, 50)); // its statement has run (its rows are held)
      const written = await fetch(`${a.url}/products/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ name: `Product ${id}, renamed` }) }).then(versionOf);
      const late = await read(); // sent after the acknowledgement
      expect(late.version, `the late read (x-cache: ${late.cache})`).toBeGreaterThanOrEqual(written.version);
      // B's second sighting, read before the write, is not stored after it (its token, the counter B
      // heard before the read, moved with the write's invalidation): what Redis holds shows the write.
      const before = (await first).version < written.version;
      await new Promise((r) => setTimeout(r, 50));
      const entry = await redisClient.get(`${prefix}r:rest:/products/${id}`);
      if (entry !== null) expect(Number(JSON.parse(JSON.parse(entry.slice(0, entry.indexOf('\n'))).etag)), 'the stored entry').toBeGreaterThanOrEqual(written.version);
      if (before && ++spanned === 2) break;
    }
    expect(spanned).toBeGreaterThan(0);
  }, 30_000);
});
