// ResponseCache across instances: a response read from Postgres before a
// write that another instance invalidates is never stored afterwards; with a
// change feed, an entry read before a change the instance heard of is never
// served, wherever it is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/cache/memory-store.ts';
import { RedisStore } from '../../src/cache/redis-store.ts';
import { HEARD_MARGIN_MS, ResponseCache } from '../../src/cache/response-cache.ts';
import type { CacheStore } from '../../src/cache/store.ts';
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
      const make = () => new ResponseCache(new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet });
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

describe('response cache with a change feed', () => {
  /** A feed whose clock and connection the test sets. */
  class FakeFeed {
    listening = true;
    time = 1_000_000;
    now(): number { return this.time; }
  }
  const setup = async () => {
    const feed = new FakeFeed();
    // One store shared by two caches, as Redis is by two instances (not the
    // in-process store, which a heard change empties at once).
    const memory = new MemoryStore();
    const store: CacheStore = {
      kind: 'redis',
      get: (key) => memory.get(key),
      generation: () => memory.generation(),
      set: (...args) => memory.set(...args),
      counter: (name) => memory.counter(name),
      bump: (name) => memory.bump(name),
      invalidate: (tags) => memory.invalidate(tags),
      close: () => memory.close(),
    };
    const writer = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed });
    const reader = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed });
    return { feed, writer, reader };
  };
  const settle = () => new Promise((r) => setTimeout(r, 5));

  it('does not serve an entry read before a change it heard of, though the store still has it; serves one read after', async () => {
    const { feed, reader } = await setup();
    reader.save('k', response, await reader.begin());
    reader.save('other', { ...response, tags: ['p:2'] }, await reader.begin());
    await settle();
    expect(await reader.lookup('k')).toBeDefined();
    feed.time += 1_000;
    reader.heard(['p:1']); // a write to product 1 committed; its invalidation never reached the store
    expect(await reader.lookup('k')).toBeUndefined();
    expect(reader.stats.refused).toBe(1);
    expect(await reader.lookup('other')).toBeDefined();
    // A read that began within the clock margin of the change is not stored (nobody would serve it) ...
    feed.time += HEARD_MARGIN_MS - 1;
    reader.save('k', { ...response, body: '{"new":true}' }, await reader.begin());
    await settle();
    expect(await reader.lookup('k')).toBeUndefined();
    // ... one that began after it is.
    feed.time += 2;
    reader.save('k', { ...response, body: '{"new":true}' }, await reader.begin());
    await settle();
    expect((await reader.lookup('k'))?.body).toBe('{"new":true}');
  });

  it('a change heard while a read was running: its response is not stored', async () => {
    const { feed, reader } = await setup();
    const token = await reader.begin();
    feed.time += 10;
    reader.heard(['p:1']);
    feed.time += 1_000;
    reader.save('k', response, token);
    await settle();
    expect(await reader.lookup('k')).toBeUndefined();
  });

  it('serves and stores nothing while the feed is not listening, and nothing read before it listened again', async () => {
    const { feed, reader } = await setup();
    reader.save('k', response, await reader.begin());
    await settle();
    feed.listening = false;
    expect(await reader.lookup('k')).toBeUndefined();
    expect(await reader.begin()).toBeUndefined();
    expect(reader.stats.unheard).toBe(1);
    expect(reader.stats.changeFeed).toBe('reconnecting');
    feed.time += 1_000;
    reader.heardEverything();
    feed.listening = true;
    expect(reader.stats.changeFeed).toBe('listening');
    expect(await reader.lookup('k')).toBeUndefined();
  });

  it('forgets heard changes after the TTL, when every entry read before them is too old to serve anyway', async () => {
    const { feed, reader } = await setup();
    const old = await reader.begin();
    feed.time += 61_000;
    reader.save('k', response, old);
    await settle();
    expect(await reader.lookup('k')).toBeUndefined();
  });
});
