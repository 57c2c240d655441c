// The store access (src/cache/response-store.ts), alone: entries kept in
// their stored form, refused when stale or read before an invalidation, and
// invalidations retried until the store takes them.
import { describe, expect, it } from 'vitest';
import { decodeStored, encodeStored } from '../../src/cache/entry.ts';
import { HeardChanges } from '../../src/cache/freshness.ts';
import { MemoryStore } from '../../src/cache/memory-store.ts';
import { ResponseStore } from '../../src/cache/response-store.ts';

const response = { status: 200, body: '{"data":1}', tags: ['p:1'] };

class FakeFeed {
  listening = true;
  time = 1_000_000;
  now(): number { return this.time; }
}

describe('store access', () => {
  const make = (feed?: FakeFeed) => {
    const stats = { errors: 0, localHits: 0, refused: 0 };
    const freshness = new HeardChanges(feed, { ttlSeconds: 60, soleWriter: false });
    const store = new ResponseStore(new MemoryStore(), { ttlSeconds: 60, freshness, localBytes: 0, localTier: false, stats, warn: () => {} });
    return { store, stats, freshness };
  };

  it('gets what it set, in the stored form, and drops it on invalidation of a tag it shows', async () => {
    const { store } = make();
    const token = await store.token(Date.now(), undefined);
    store.set('k', response, token!);
    await new Promise((r) => setImmediate(r));
    expect((await store.get('k')).stored).toMatchObject(response);
    await store.invalidate(['p:2']);
    expect((await store.get('k')).stored).toBeDefined();
    await store.invalidate(['p:1']);
    expect((await store.get('k')).stored).toBeUndefined();
  });

  it('refuses to keep a response whose token predates an invalidation', async () => {
    const { store } = make();
    const token = await store.token(Date.now(), undefined);
    await store.invalidate(['p:9']);
    store.set('k', response, token!);
    await new Promise((r) => setImmediate(r));
    expect((await store.get('k')).stored).toBeUndefined();
  });

  it('refuses (and counts) an entry freshness finds stale', async () => {
    const feed = new FakeFeed();
    const { store, stats, freshness } = make(feed);
    store.set('k', response, (await store.token(feed.time, undefined))!);
    await new Promise((r) => setImmediate(r));
    feed.time += 1_000;
    freshness.heard(['p:1']);
    expect((await store.get('k')).stored).toBeUndefined();
    expect(stats.refused).toBe(1);
  });

  it('an invalidation the store refuses is retried until it takes it; meanwhile nothing is read or stored', async () => {
    const memory = new MemoryStore();
    let down = true;
    const failing = Object.assign(Object.create(memory) as MemoryStore, { invalidate: (tags: readonly string[]) => (down ? Promise.reject(new Error('down')) : memory.invalidate(tags)) });
    const stats = { errors: 0, localHits: 0, refused: 0 };
    const store = new ResponseStore(failing, { ttlSeconds: 60, freshness: new HeardChanges(undefined, { ttlSeconds: 60, soleWriter: false }), localBytes: 0, localTier: false, stats, warn: () => {} });
    await store.invalidate(['p:1']);
    expect([store.pendingInvalidations, store.usable, stats.errors]).toEqual([1, false, 1]);
    expect(await store.token(Date.now(), undefined)).toBeUndefined();
    down = false;
    for (let i = 0; i < 50 && store.pendingInvalidations > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect([store.pendingInvalidations, store.usable]).toEqual([0, true]);
    await store.close();
  });

  it('keeps the body as it is after one line of head', () => {
    const raw = encodeStored({ ...response, body: '{"a":"\\n"}\nsecond line', readAt: 5 });
    expect(decodeStored(raw)).toEqual({ ...response, body: '{"a":"\\n"}\nsecond line', readAt: 5 });
    expect(decodeStored('"an old format"')).toBeUndefined();
  });
});
