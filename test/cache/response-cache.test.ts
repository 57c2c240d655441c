// ResponseCache across instances: a response read from Postgres before a
// write that another instance invalidates is never stored afterwards; with a
// change feed, an entry read before a change the instance heard of is never
// served, wherever it is stored. A miss's token is what its own lookup read
// (no second store command).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/cache/memory-store.ts';
import { RedisStore } from '../../src/cache/redis-store.ts';
import { type CachedResponse, HEARD_MARGIN_MS, ResponseCache } from '../../src/cache/response-cache.ts';
import type { CacheStore } from '../../src/cache/store.ts';
import { redisAvailable, redisReady, startTestRedis, type TestRedis } from '../support/redis.ts';
import { until } from '../support/wait.ts';

const quiet = () => {};
const response = { status: 200, body: '{"old":true}', tags: ['p:1'] };

/** A lookup alone: the entry, or undefined (the turn to produce it given back unused). */
async function lookup(cache: ResponseCache, key: string): Promise<CachedResponse | undefined> {
  const found = await cache.obtain(key);
  if (found.outcome !== 'miss') return found.response;
  found.settle(undefined);
  return undefined;
}

/** A miss: the turn to produce `key`'s response, as a request gets it before reading Postgres. */
async function miss(cache: ResponseCache, key: string): Promise<(value: CachedResponse | undefined) => void> {
  const found = await cache.obtain(key);
  if (found.outcome !== 'miss') throw new Error(`${key} is cached already`);
  return found.settle;
}

/** A miss produced at once: `value` read from Postgres after the lookup, and stored. */
async function produce(cache: ResponseCache, key: string, value: CachedResponse = response): Promise<void> {
  (await miss(cache, key))(value);
}

/** A feed whose clock and connection the test sets. */
class FakeFeed {
  listening = true;
  time = 1_000_000;
  now(): number { return this.time; }
}

/**
 * A store shared as Redis is (not the in-process store, which a heard change
 * empties at once), over `memory`: counts entry reads, and holds their
 * answers back while `held` is pending.
 */
function sharedStore(memory: MemoryStore, counts = { gets: 0, generations: 0 }, held: () => Promise<void> | undefined = () => undefined): CacheStore {
  // The counter as Redis keeps it: never 0 once started (here: from the start).
  const OFFSET = 1_000;
  return {
    kind: 'redis',
    get: async (key) => {
      counts.gets++;
      const value = await memory.get(key);
      await held();
      return value;
    },
    getWithGeneration: async (key) => {
      counts.gets++;
      const [value, generation] = [await memory.get(key), await memory.generation()];
      await held();
      return { value, generation: generation + OFFSET };
    },
    checkGeneration: async () => (await memory.generation()) + OFFSET,
    generation: async () => {
      counts.generations++;
      return (await memory.generation()) + OFFSET;
    },
    set: (key, value, tags, ttl, ifGeneration) => memory.set(key, value, tags, ttl, ifGeneration === undefined ? undefined : ifGeneration - OFFSET),
    counter: (name) => memory.counter(name),
    bump: (name) => memory.bump(name),
    invalidate: (tags) => memory.invalidate(tags),
    close: () => memory.close(),
  };
}

describe('response cache generations', () => {
  it('in-process: an invalidation between the read and the store keeps the old response out', async () => {
    const cache = new ResponseCache(new MemoryStore(), { ttlSeconds: 60, warn: quiet });
    const settle = await miss(cache, 'k');
    await cache.invalidate(['p:1']);
    settle(response);
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeUndefined();
    // With no invalidation in between, it is stored.
    await produce(cache, 'k');
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeDefined();
  });

  it('single flight: identical misses meanwhile share the first one\'s response; one it does not keep, each produces its own', async () => {
    const cache = new ResponseCache(new MemoryStore(), { ttlSeconds: 60, warn: quiet });
    const first = await miss(cache, 'k');
    const waiting = [cache.obtain('k'), cache.obtain('k')];
    await new Promise((r) => setImmediate(r)); // both are waiting for the first
    first(response);
    for (const found of await Promise.all(waiting)) expect(found).toEqual({ outcome: 'shared', response });
    const second = await miss(cache, 'other');
    const follower = cache.obtain('other');
    await new Promise((r) => setImmediate(r));
    second(undefined); // a result with errors: nothing to share or keep
    const own = await follower;
    expect(own.outcome).toBe('miss');
    if (own.outcome === 'miss') own.settle(undefined);
    expect(await lookup(cache, 'other')).toBeUndefined();
    expect(cache.stats).toMatchObject({ hits: 0, misses: 6 });
  });

  it('single flight: a request arriving after an acknowledged write does not share a read that began before it', async () => {
    const cache = new ResponseCache(new MemoryStore(), { ttlSeconds: 60, warn: quiet });
    const first = await miss(cache, 'k');      // a read of product 1 begins
    await cache.invalidate(['p:1']);           // a write to product 1, acknowledged
    const late = cache.obtain('k');            // a request sent after the acknowledgement
    await new Promise((r) => setImmediate(r));
    first(response);                           // the first read's (old) response
    const found = await late;
    expect(found).toMatchObject({ outcome: 'miss', stores: true });
    if (found.outcome === 'miss') found.settle(undefined);
  });

  it('a counter not started yet: the miss asks for it before its read begins, so a write during the read keeps the response out', async () => {
    // Redis without the counter (never started, flushed): the lookup reads 0,
    // and the counter is asked again. Its reply comes late (a slow network):
    // Redis answers with the counter as it is when the command arrives.
    const memory = new MemoryStore();
    let started = false;
    const late = () => new Promise((r) => setTimeout(r, 30));
    const shared: CacheStore = {
      ...sharedStore(memory),
      getWithGeneration: async (key) => ({ value: await memory.get(key), generation: started ? 1_000 + await memory.generation() : 0 }),
      generation: async () => {
        await late();
        return started ? 1_000 + await memory.generation() : 0;
      },
      invalidate: async (tags) => {
        started = true;
        await memory.invalidate(tags);
      },
    };
    const cache = new ResponseCache(shared, { ttlSeconds: 60, warn: quiet });
    const settle = await miss(cache, 'k');  // the read from Postgres begins now
    await shared.invalidate(['p:1']);       // another instance's write, committed during the read
    settle(response);                       // the (old) response arrives
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeUndefined();
    // With no write in between, it is stored.
    await produce(cache, 'k');
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeDefined();
  });

  describe.skipIf(!redisAvailable())('shared Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startTestRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('local tier: a reconnection to Redis drops every local entry (the counter may repeat on another Redis)', async () => {
      const prefix = `loc${Date.now()}:`;
      const store = new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 });
      const cache = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed: { listening: true, now: () => Date.now() }, localBytes: 1 << 20 });
      try {
        await redisReady(store.client);
        await produce(cache, 'k');
        await cache.backgroundSettled();
        // No counter in Redis yet: fetched, not kept, and the counter started.
        expect(await lookup(cache, 'k')).toBeDefined();
        expect(cache.stats.local?.entries).toBe(0);
        await cache.backgroundSettled(); // the counter started by the lookup
        expect(Number(await store.client.get(`${prefix}generation`))).toBeGreaterThan(Date.now() * 1_000 - 60_000_000);
        expect(await lookup(cache, 'k')).toBeDefined();
        expect(await lookup(cache, 'k')).toBeDefined();
        expect(cache.stats).toMatchObject({ localHits: 1, local: { entries: 1 } });
        await store.client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'no').catch(() => {}); // its own connection too
        await until('the local tier emptied', () => cache.stats.local?.entries === 0);
        expect(cache.stats.local?.entries).toBe(0);
      } finally {
        await cache.close();
      }
    });

    it('local tier: a counter lost without a reconnection (FLUSHALL, eviction) starts again above every value it had', async () => {
      const prefix = `flush${Date.now()}:`;
      const store = new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 });
      const writer = new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 });
      const cache = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed: { listening: true, now: () => Date.now() }, localBytes: 1 << 20 });
      try {
        for (const client of [store.client, writer.client]) await redisReady(client);
        await writer.invalidate(['p:9']);
        const before = await writer.generation();
        await produce(cache, 'k');
        await cache.backgroundSettled();
        await lookup(cache, 'k');
        expect(await lookup(cache, 'k')).toBeDefined();
        expect(cache.stats.localHits).toBe(1);
        await writer.client.flushall();
        // Every write since the flush, as many as before it: the counter never shows the entry's value again.
        for (let i = 0; i < 3; i++) {
          await writer.invalidate(['p:1']);
          expect(await writer.generation()).toBeGreaterThan(before);
          expect(await lookup(cache, 'k')).toBeUndefined();
        }
        expect(cache.stats.localHits).toBe(1);
      } finally {
        await cache.close();
        await writer.close();
      }
    });

    it('admission on the second miss: a key\'s first miss in a process only looks it up; its second is stored, still refused after an invalidation meanwhile', async () => {
      const prefix = `adm${Date.now()}:`;
      const make = () => new ResponseCache(new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet, admission: 'second-miss' });
      const a = make();
      const b = make();
      const calls = async (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await a.redisClient!.info('commandstats'))?.[1] ?? 0);
      const stored = async (key: string) => (await a.redisClient!.exists(`${prefix}r:${key}`)) === 1;
      try {
        for (const cache of [a, b]) {
          const client = cache.redisClient!;
          await redisReady(client);
        }
        const before = { mget: await calls('mget'), evalsha: await calls('evalsha'), eval: await calls('eval') };
        const first = await a.obtain('k');
        expect(first).toMatchObject({ outcome: 'miss', stores: false });
        if (first.outcome === 'miss') first.settle(response);
        await a.backgroundSettled();
        // One command for the first miss: its lookup; no store script.
        expect({ mget: await calls('mget'), evalsha: await calls('evalsha'), eval: await calls('eval') }).toEqual({ ...before, mget: before.mget + 1 });
        expect(await stored('k')).toBe(false);
        // Another process's first miss of it: not stored either (sightings are each process's own).
        expect(await b.obtain('k')).toMatchObject({ outcome: 'miss', stores: false });
        const second = await a.obtain('k');
        expect(second).toMatchObject({ outcome: 'miss', stores: true });
        if (second.outcome === 'miss') second.settle(response);
        await a.backgroundSettled();
        expect(await stored('k')).toBe(true);
        // What A stored, B serves.
        expect(await b.obtain('k')).toEqual({ outcome: 'hit', response: { ...response, readAt: expect.any(Number) } });
        expect(a.stats).toMatchObject({ misses: 2, unadmitted: 1 });
        // A second miss read while another instance invalidated: refused as before.
        await lookup(a, 'j');
        const settle = await miss(a, 'j');
        await b.invalidate(['p:1']);
        settle(response);
        await a.backgroundSettled();
        expect(await stored('j')).toBe(false);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('doorkeeper: a cheap read\'s first sighting sends Redis nothing; its second is stored (looked up first only when no counter was heard lately); an expensive read is stored on its first miss; each process sights on its own', async () => {
      const prefix = `door${Date.now()}:`;
      const make = () => new ResponseCache(new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet, admission: 'doorkeeper' });
      const a = make();
      const b = make();
      /** Every command Redis has run but INFO (what the test itself asks). */
      const commands = async () => {
        let total = 0;
        for (const [, name, calls] of (await a.redisClient!.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) if (name !== 'info') total += Number(calls);
        return total;
      };
      const calls = async (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await a.redisClient!.info('commandstats'))?.[1] ?? 0);
      const stored = async (key: string) => (await a.redisClient!.exists(`${prefix}r:${key}`)) === 1;
      const settled = () => Promise.all([a.backgroundSettled(), b.backgroundSettled()]);
      try {
        for (const cache of [a, b]) {
          const client = cache.redisClient!;
          await redisReady(client);
        }
        // Redis's invalidation counter started now, not by a store below.
        await (a as unknown as { store: { checkGeneration(): Promise<number> } }).store.checkGeneration();
        await settled();
        const before = await commands();
        const first = await a.obtain('cheap', true);
        expect(first).toMatchObject({ outcome: 'miss', stores: false });
        if (first.outcome === 'miss') first.settle(response);
        await settled();
        // Nothing sent for it: no lookup, no store (the EXISTS below comes after the count).
        expect(await commands()).toBe(before);
        expect(await stored('cheap')).toBe(false);
        expect(a.stats).toMatchObject({ misses: 1, firstSightings: 1 });
        // Its second sighting: A has heard no counter yet, so it is looked up (a miss) and stored.
        const lookups = await calls('mget');
        const second = await a.obtain('cheap', true);
        expect(second).toMatchObject({ outcome: 'miss', stores: true });
        if (second.outcome === 'miss') second.settle(response);
        await settled();
        expect(await calls('mget')).toBe(lookups + 1);
        expect(await stored('cheap')).toBe(true);
        expect(await a.obtain('cheap', true)).toEqual({ outcome: 'hit', response: { ...response, readAt: expect.any(Number) } });
        // Another key's second sighting with the counter heard a moment ago: stored without a lookup (its first stored nothing).
        expect(await a.obtain('cheap2', true)).toMatchObject({ outcome: 'miss', stores: false });
        const withoutLookup = await calls('mget');
        const second2 = await a.obtain('cheap2', true);
        expect(second2).toMatchObject({ outcome: 'miss', stores: true });
        if (second2.outcome === 'miss') second2.settle(response);
        await settled();
        expect(await calls('mget')).toBe(withoutLookup);
        expect(await stored('cheap2')).toBe(true);
        expect(a.stats).toMatchObject({ secondSightings: 1 });
        // B has not sighted it: its first sighting is not looked up, though A stored it; its second
        // (B has heard no counter) is looked up and a hit.
        expect(await b.obtain('cheap', true)).toMatchObject({ outcome: 'miss', stores: false });
        expect(await b.obtain('cheap', true)).toEqual({ outcome: 'hit', response: { ...response, readAt: expect.any(Number) } });
        // An expensive read: looked up and stored on its first miss, and B finds it on its first.
        await produce(a, 'dear');
        await settled();
        expect(await stored('dear')).toBe(true);
        expect(await b.obtain('dear')).toMatchObject({ outcome: 'hit' });
        expect(a.stats).toMatchObject({ misses: 5, firstSightings: 2, secondSightings: 1, unadmitted: 0 });
        // A second sighting read while another instance invalidated: refused as any (the
        // counter heard before the read is its token).
        expect(await a.obtain('j', true)).toMatchObject({ outcome: 'miss', stores: false });
        const sighted = await a.obtain('j', true);
        expect(sighted).toMatchObject({ outcome: 'miss', stores: true });
        await b.invalidate(['p:1']);
        if (sighted.outcome === 'miss') sighted.settle(response);
        await settled();
        expect(await stored('j')).toBe(false);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('an invalidation by another instance during the read keeps the old response out', async () => {
      const prefix = `gen${Date.now()}:`;
      const make = () => new ResponseCache(new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet });
      const a = make();
      const b = make();
      try {
        for (const cache of [a, b]) {
          const client = cache.redisClient!;
          await redisReady(client);
        }
        const settle = await miss(b, 'k');      // B misses and starts reading product 1 from Postgres
        await a.invalidate(['p:1']);             // A commits a write to product 1 and invalidates
        settle(response);                        // B's (old) result arrives afterwards
        await b.backgroundSettled();
        expect(await lookup(b, 'k')).toBeUndefined();
        expect(await lookup(a, 'k')).toBeUndefined();
        await produce(b, 'k');
        await b.backgroundSettled();
        expect(await lookup(a, 'k')).toBeDefined();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('single flight: a request arriving after another instance\'s acknowledged write does not share a read that began before the write; one arriving with no write since does', async () => {
      const prefix = `flight${Date.now()}:`;
      const make = () => new ResponseCache(new RedisStore({ target: { url: redis.url }, prefix, timeoutMs: 200 }), { ttlSeconds: 60, warn: quiet });
      const a = make();
      const b = make();
      const fresh = { ...response, body: '{"old":false}' };
      try {
        for (const cache of [a, b]) {
          const client = cache.redisClient!;
          await redisReady(client);
        }
        await a.invalidate(['p:0']); // the counter started
        const settle = await miss(b, 'k');      // B starts reading product 1 from Postgres
        await a.invalidate(['p:1']);             // A commits a write to product 1 and acknowledges it
        const missesBefore = b.stats.misses;
        const late = b.obtain('k');              // a request to B sent after the acknowledgement
        await until('the late request looked up (it follows or reads)', () => b.stats.misses > missesBefore);
        settle(response);                        // B's first read (old) arrives
        const found = await late;
        expect(found.outcome).toBe('miss');      // not the old response: it reads for itself
        if (found.outcome === 'miss') found.settle(fresh);
        // With no write since the read began, identical requests share it.
        const settle2 = await miss(b, 'k2');
        const missesBefore2 = b.stats.misses;
        const follower = b.obtain('k2');
        await until('the follower looked up', () => b.stats.misses > missesBefore2);
        settle2(fresh);
        expect(await follower).toEqual({ outcome: 'shared', response: fresh });
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});

describe('response cache with a change feed', () => {
  const setup = async () => {
    const feed = new FakeFeed();
    // One store shared by two caches, as Redis is by two instances.
    const store = sharedStore(new MemoryStore());
    const writer = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed });
    const reader = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed });
    return { feed, writer, reader };
  };

  it('does not serve an entry read before a change it heard of, though the store still has it; serves one read after', async () => {
    const { feed, reader } = await setup();
    await produce(reader, 'k', response);
    await produce(reader, 'other', { ...response, tags: ['p:2'] });
    await reader.backgroundSettled();
    expect(await lookup(reader, 'k')).toBeDefined();
    feed.time += 1_000;
    reader.heard(['p:1']); // a write to product 1 committed; its invalidation never reached the store
    expect(await lookup(reader, 'k')).toBeUndefined();
    expect(reader.stats.refused).toBe(1);
    expect(await lookup(reader, 'other')).toBeDefined();
    // A read that began within the clock margin of the change is not stored (nobody would serve it) ...
    feed.time += HEARD_MARGIN_MS - 1;
    await produce(reader, 'k', { ...response, body: '{"new":true}' });
    await reader.backgroundSettled();
    expect(await lookup(reader, 'k')).toBeUndefined();
    // ... one that began after it is.
    feed.time += 2;
    await produce(reader, 'k', { ...response, body: '{"new":true}' });
    await reader.backgroundSettled();
    expect((await lookup(reader, 'k'))?.body).toBe('{"new":true}');
  });

  it('a change heard while a read was running: its response is not stored', async () => {
    const { feed, reader } = await setup();
    const produced = await miss(reader, 'k');
    feed.time += 10;
    reader.heard(['p:1']);
    feed.time += 1_000;
    produced(response);
    await reader.backgroundSettled();
    expect(await lookup(reader, 'k')).toBeUndefined();
  });

  it('serves and stores nothing while the feed is not listening, and nothing read before it listened again', async () => {
    const { feed, reader } = await setup();
    await produce(reader, 'k');
    await reader.backgroundSettled();
    feed.listening = false;
    expect(await lookup(reader, 'k')).toBeUndefined();
    await produce(reader, 'meanwhile');
    await reader.backgroundSettled();
    expect(reader.stats.unheard).toBe(2);
    expect(reader.stats.changeFeed).toBe('reconnecting');
    feed.listening = true;
    expect(await lookup(reader, 'meanwhile')).toBeUndefined();
    feed.listening = false;
    feed.time += 1_000;
    reader.heardEverything();
    feed.listening = true;
    expect(reader.stats.changeFeed).toBe('listening');
    expect(await lookup(reader, 'k')).toBeUndefined();
  });

  it('forgets heard changes after the TTL, when every entry read before them is too old to serve anyway', async () => {
    const { feed, reader } = await setup();
    const old = await miss(reader, 'k');
    feed.time += 61_000;
    old(response);
    await reader.backgroundSettled();
    expect(await lookup(reader, 'k')).toBeUndefined();
  });
});

describe('local tier in front of a shared store', () => {
  /** A shared store (as Redis) that counts reads and can hold one back. */
  const setup = (localBytes = 1 << 20) => {
    const feed = new FakeFeed();
    const memory = new MemoryStore();
    const counts = { gets: 0, generations: 0 };
    let held: Promise<void> | undefined;
    const store = sharedStore(memory, counts, () => held);
    const cache = new ResponseCache(store, { ttlSeconds: 60, warn: quiet, feed, localBytes });
    // Entries are stored by another instance sharing the store (its reads are not counted).
    const writer = new ResponseCache(sharedStore(memory), { ttlSeconds: 60, warn: quiet, feed });
    const stored = async (key: string, value = response) => {
      await produce(writer, key, value);
      await writer.backgroundSettled();
    };
    const hold = () => {
      let release!: () => void;
      held = new Promise((r) => { release = r; });
      return () => { held = undefined; release(); };
    };
    return { feed, cache, counts, memory, hold, stored };
  };

  it('a miss asks the store once: the counter its lookup read is its token, and a write meanwhile keeps its response out', async () => {
    const { cache, counts, memory } = setup();
    const settle = await miss(cache, 'k');
    expect(counts).toEqual({ gets: 1, generations: 0 });
    await memory.invalidate(['p:9']); // another instance's write while this miss reads Postgres
    settle(response);
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeUndefined();
    await produce(cache, 'k');
    await cache.backgroundSettled();
    expect(await lookup(cache, 'k')).toBeDefined();
  });

  it('a second hit is answered locally, without asking the store', async () => {
    const { cache, counts, stored } = setup();
    await stored('k');
    expect((await lookup(cache, 'k'))?.body).toBe(response.body);
    expect(counts.gets).toBe(1);
    expect((await lookup(cache, 'k'))?.body).toBe(response.body);
    expect((await cache.fetch('k', async () => { throw new Error('not read'); })).outcome).toBe('hit');
    expect(counts.gets).toBe(1);
    expect(cache.stats).toMatchObject({ hits: 3, localHits: 2, local: { entries: 1 } });
  });

  it('another instance\'s invalidation, not heard yet: its entries are not served locally (the store\'s counter moved); the others are fetched again once', async () => {
    const { cache, counts, memory, stored } = setup();
    await stored('k');
    await stored('other', { ...response, tags: ['p:2'] });
    for (const key of ['k', 'other']) await lookup(cache, key);
    expect(await lookup(cache, 'k')).toBeDefined();
    expect(cache.stats.localHits).toBe(1);
    await memory.invalidate(['p:1']); // another instance's write, acknowledged; its notification not here yet
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(await lookup(cache, 'other')).toBeDefined();
    expect(await lookup(cache, 'other')).toBeDefined();
    expect(counts.gets).toBe(4);
    expect(cache.stats.localHits).toBe(2);
  });

  it('the store not answering the turn\'s check: no local hit, counted as a store error', async () => {
    const { cache, memory, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    memory.generation = async () => { throw new Error('Redis down'); };
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(cache.stats.errors).toBe(1);
  });

  it('a heard change drops the local copy, and the store\'s old entry is refused', async () => {
    const { feed, cache, counts, stored } = setup();
    await stored('k');
    await stored('other', { ...response, tags: ['p:2'] });
    await lookup(cache, 'k');
    await lookup(cache, 'other');
    feed.time += 1_000;
    cache.heard(['p:1']);
    expect(cache.stats.local?.entries).toBe(1);
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(cache.stats.refused).toBe(1);
    expect(counts.gets).toBe(3);
    expect(await lookup(cache, 'other')).toBeDefined();
    expect(counts.gets).toBe(3);
  });

  it('its own invalidation drops the local copy at once, before the feed tells it', async () => {
    const { cache, counts, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    await cache.invalidate(['p:1']);
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(counts.gets).toBe(2);
    expect(cache.stats.localHits).toBe(0);
  });

  it('nothing is read, locally or not, while its own invalidation has not reached the store', async () => {
    const { cache, counts, memory, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    memory.invalidate = async () => { throw new Error('Redis down'); };
    await cache.invalidate(['p:1']);
    // Nothing is read while the invalidation is pending, locally or not.
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(cache.stats.localHits).toBe(0);
    expect(counts.gets).toBe(1);
    await cache.close();
  });

  it('an entry the store returns after an invalidation began is served to that request but not kept', async () => {
    const { cache, counts, hold, stored } = setup();
    await stored('k');
    const release = hold();
    const reading = lookup(cache, 'k');      // the store's answer is on its way (the old entry)
    await new Promise((r) => setImmediate(r));
    expect(counts.gets).toBe(1);
    await cache.invalidate(['p:1']);        // meanwhile a write through this instance
    release();
    expect((await reading)?.body).toBe(response.body);
    expect(await lookup(cache, 'k')).toBeUndefined(); // asked the store again: gone there
    expect(counts.gets).toBe(2);
  });

  it('a change heard while a local hit waits for the end of its turn: not served', async () => {
    const { feed, cache, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    const hit = lookup(cache, 'k');
    feed.time += 1_000;
    cache.heard(['p:1']);
    expect(await hit).toBeUndefined();
    expect(cache.stats.localHits).toBe(0);
  });

  it('a reconnected feed drops every local copy; nothing is served locally while it is not listening', async () => {
    const { feed, cache, counts, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    feed.listening = false;
    expect(await lookup(cache, 'k')).toBeUndefined();
    feed.time += 1_000;
    cache.heardEverything();
    feed.listening = true;
    expect(cache.stats.local).toEqual({ entries: 0, bytes: 0 });
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(counts.gets).toBe(2);
  });

  it('a local copy is not served beyond the TTL of its read', async () => {
    const { feed, cache, counts, stored } = setup();
    await stored('k');
    await lookup(cache, 'k');
    feed.time += 61_000;
    expect(await lookup(cache, 'k')).toBeUndefined();
    expect(counts.gets).toBe(2);
    expect(cache.stats.local?.entries).toBe(0);
  });

  it('holds at most its size, dropping the least recently used; weighs the entry as V8 keeps it, and its key', async () => {
    const body = 'x'.repeat(1_000);
    const { cache, memory, stored } = setup(3_000); // two entries of about 1,300 bytes, not three
    for (const key of ['a', 'b', 'c']) {
      await stored(key, { ...response, body });
      await lookup(cache, key);
    }
    const raw = (await memory.get('c'))!;
    expect(cache.stats.local).toEqual({ entries: 2, bytes: 2 * (raw.length + 1 + 256) });
    // Two characters of Greek: the whole entry takes two bytes a character.
    const { cache: greek, memory: greekMemory, stored: greekStored } = setup(1 << 20);
    await greekStored('g', { ...response, body: 'Ωμ' });
    await lookup(greek, 'g');
    expect(greek.stats.local?.bytes).toBe(2 * (await greekMemory.get('g'))!.length + 1 + 256);
    // A key longer than 2,048 characters is not kept locally (padded URLs or variables).
    const long = `k${'x'.repeat(2_048)}`;
    await greekStored(long);
    await lookup(greek, long);
    expect(greek.stats.local?.entries).toBe(1);
  });

  it('is not used without a feed, nor in front of the in-process store', async () => {
    const plain = new ResponseCache(new MemoryStore(), { ttlSeconds: 60, warn: quiet, feed: new FakeFeed(), localBytes: 1 << 20 });
    expect(plain.stats.local).toBeUndefined();
    const { memory } = setup();
    const unheard = new ResponseCache(sharedStore(memory), { ttlSeconds: 60, warn: quiet, localBytes: 1 << 20 });
    expect(unheard.stats.local).toBeUndefined();
  });
});
