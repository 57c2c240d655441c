// Both stores keep the same contract: get/set, expiry, and invalidation by tag
// that drops exactly the tagged entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaggedLru } from '../../src/cache/tagged-lru.ts';
import { MemoryStore } from '../../src/cache/memory-store.ts';
import { RedisStore } from '../../src/cache/redis-store.ts';
import type { CacheStore } from '../../src/cache/store.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { until } from '../support/wait.ts';

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (redisAvailable()) redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function ready(store: CacheStore): Promise<CacheStore> {
  if (store instanceof RedisStore) {
    for (let i = 0; i < 100 && store.client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
  }
  return store;
}

const stores: [string, () => Promise<CacheStore>][] = [
  ['memory', async () => new MemoryStore(100)],
  ['redis', async () => ready(new RedisStore({ target: { url: redis!.url }, prefix: `t${Math.random().toString(36).slice(2)}:`, timeoutMs: 200 }))],
];

describe.each(stores)('%s store', (kind, make) => {
  it('stores, reads back, and drops exactly the entries carrying an invalidated tag', async (context) => {
    if (kind === 'redis' && !redis) context.skip();
    const store = await make();
    try {
      await store.set('a', 'A', ['p:1', 'p:2'], 60);
      await store.set('b', 'B', ['p:2'], 60);
      await store.set('c', 'C', ['p:3'], 60);
      expect(await store.get('a')).toBe('A');
      await store.invalidate(['p:2']);
      expect(await store.get('a')).toBeUndefined();
      expect(await store.get('b')).toBeUndefined();
      expect(await store.get('c')).toBe('C');
      await store.invalidate(['p:404']);
      expect(await store.get('c')).toBe('C');
    } finally {
      await store.close();
    }
  });

  it('gives back exactly what was stored (names beyond ASCII, a lone newline inside)', async (context) => {
    if (kind === 'redis' && !redis) context.skip();
    const store = await make();
    try {
      const value = '{"etag":"x"}\n[{"name":"Crème brûlée ☃ 😀","note":"a\\nb"}]';
      await store.set('u', value, ['p:7'], 60);
      expect(await store.get('u')).toBe(value);
    } finally {
      await store.close();
    }
  });

  it('expires entries after their TTL', async (context) => {
    if (kind === 'redis' && !redis) context.skip();
    const store = await make();
    try {
      await store.set('short', 'S', ['p:9'], 1);
      expect(await store.get('short')).toBe('S');
      await until('the entry expired', async () => (await store.get('short')) === undefined, { everyMs: 50, timeoutMs: 10_000 });
    } finally {
      await store.close();
    }
  });
});

describe('memory store', () => {
  it('evicts the least recently used entry beyond its size', async () => {
    const store = new MemoryStore(2);
    await store.set('a', 'A', [], 60);
    await store.set('b', 'B', [], 60);
    await store.get('a');
    await store.set('c', 'C', [], 60);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('A');
    expect(await store.get('c')).toBe('C');
  });
});

describe('tagged LRU (second chance)', () => {
  it('keeps what was used since it was last passed over, by weight; never stores one entry heavier than the limit', () => {
    const lru = new TaggedLru<string>(10, (value) => value.length);
    lru.set('a', 'aaaa', ['p:1']);
    lru.set('b', 'bbbb', ['p:2']);
    lru.get('a');
    lru.set('c', 'cccc', ['p:1']); // 12 > 10: b goes (a was used), not a
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual(['aaaa', undefined, 'cccc']);
    expect(lru.weight).toBe(8);
    expect(lru.set('d', 'x'.repeat(11), [])).toBe(false);
    expect(lru.size).toBe(2);
    // Both used since: the one passed over first goes after its second chance, never the new one.
    lru.set('e', 'eeee', []);
    expect([lru.get('a'), lru.get('c'), lru.get('e')]).toEqual(['aaaa', undefined, 'eeee']);
  });

  it('drops by tag, and refuses a value read before an invalidation', () => {
    const lru = new TaggedLru<string>(100);
    lru.set('a', 'A', ['p:1', 'listing']);
    lru.set('b', 'B', ['p:2']);
    const generation = lru.generation;
    lru.invalidate(['p:1']);
    expect([lru.get('a'), lru.get('b')]).toEqual([undefined, 'B']);
    expect(lru.set('a', 'old A', ['p:1'], generation)).toBe(false);
    expect(lru.set('a', 'new A', ['p:1'], lru.generation)).toBe(true);
    lru.invalidate(['listing']);
    expect(lru.get('a')).toBe('new A'); // its tags are the new entry's
    lru.clear();
    expect([lru.size, lru.weight]).toEqual([0, 0]);
  });
});

describe('redis store', () => {
  it('fails fast, without hanging, when Redis is not there', async () => {
    const store = new RedisStore({ target: { url: 'redis://127.0.0.1:1' }, prefix: 'x:', timeoutMs: 100 });
    try {
      const started = Date.now();
      await expect(store.get('a')).rejects.toThrow();
      await expect(store.set('a', 'A', ['p:1'], 60)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await store.close();
    }
  });
});
