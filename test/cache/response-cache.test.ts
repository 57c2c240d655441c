// ResponseCache across instances: a response read from Postgres before a
// write that another instance invalidates is never stored afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/cache/memory-store.ts';
import { RedisStore } from '../../src/cache/redis-store.ts';
import { ResponseCache } from '../../src/cache/response-cache.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const quiet = () => {};
const response = { status: 200, body: '{"old":true}', tags: ['p:1'] };

describe('response cache generations', () => {
  it('in-process: an invalidation between the read and the store keeps the old response out', async () => {
    const cache = new ResponseCache(new MemoryStore(), { ttlSeconds: 60, warn: quiet });
    const token = await cache.begin();
    await cache.invalidate(['p:1']);
    cache.save('k', response, token);
    await new Promise((r) => setTimeout(r, 20));
    expect(await cache.lookup('k')).toBeUndefined();
    // With no invalidation in between, it is stored.
    cache.save('k', response, await cache.begin());
    await new Promise((r) => setTimeout(r, 20));
    expect(await cache.lookup('k')).toBeDefined();
  });

  describe.skipIf(!redisAvailable())('shared Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('an invalidation by another instance during the read keeps the old response out', async () => {
      const prefix = `gen${Date.now()}:`;
      const make = () => new ResponseCache(new RedisStore({ url: redis.url, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet });
      const a = make();
      const b = make();
      try {
        for (const cache of [a, b]) {
          const client = cache.redisClient!;
          for (let i = 0; i < 100 && client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
        }
        const token = await b.begin();           // B starts reading product 1 from Postgres
        await a.invalidate(['p:1']);             // A commits a write to product 1 and invalidates
        b.save('k', response, token);            // B's (old) result arrives afterwards
        await new Promise((r) => setTimeout(r, 50));
        expect(await b.lookup('k')).toBeUndefined();
        expect(await a.lookup('k')).toBeUndefined();
        b.save('k', response, await b.begin());
        await new Promise((r) => setTimeout(r, 50));
        expect(await a.lookup('k')).toBeDefined();
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
