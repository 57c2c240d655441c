// Freshness (src/cache/freshness.ts), alone: which entries the changes the
// feed heard make stale, on whose clock, and when the feed is trusted.
import { describe, expect, it } from 'vitest';
import { HEARD_MARGIN_MS, HeardChanges } from '../../src/cache/freshness.ts';

class FakeFeed {
  listening = true;
  time = 1_000_000;
  now(): number { return this.time; }
}

describe('freshness (heard changes)', () => {
  it('without a feed every entry is fresh and nothing is heard', () => {
    const freshness = new HeardChanges(undefined, { ttlSeconds: 60, soleWriter: false });
    expect(freshness.trusted).toBe(true);
    expect(freshness.heard(['p:1'])).toBe(false);
    expect(freshness.heardEverything()).toBe(false);
    expect(freshness.stale(undefined, ['p:1'])).toBe(false);
  });

  it('an entry read before (or within the margin after) a heard change of its tags is stale; others stay fresh', () => {
    const feed = new FakeFeed();
    const freshness = new HeardChanges(feed, { ttlSeconds: 60, soleWriter: false });
    const readAt = feed.time;
    feed.time += 1_000;
    expect(freshness.heard(['p:1'])).toBe(true);
    expect(freshness.stale(readAt, ['p:1'])).toBe(true);
    expect(freshness.stale(readAt, ['p:2'])).toBe(false);
    expect(freshness.stale(feed.time + HEARD_MARGIN_MS - 1, ['p:1'])).toBe(true);
    expect(freshness.stale(feed.time + HEARD_MARGIN_MS, ['p:1'])).toBe(false);
    expect(freshness.stale(undefined, ['p:2'])).toBe(true); // no time: cannot tell
  });

  it('a reconnected feed makes everything read before stale; entries older than the TTL are stale; a feed not listening is not trusted', () => {
    const feed = new FakeFeed();
    const freshness = new HeardChanges(feed, { ttlSeconds: 60, soleWriter: false });
    const readAt = feed.time;
    feed.time += 100;
    expect(freshness.heardEverything()).toBe(true);
    expect(freshness.stale(readAt, [])).toBe(true);
    expect(freshness.stale(feed.time + HEARD_MARGIN_MS, [])).toBe(false);
    feed.time += 61_000;
    expect(freshness.stale(feed.time - 61_000 + HEARD_MARGIN_MS, [])).toBe(true);
    feed.listening = false;
    expect(freshness.trusted).toBe(false);
  });

  it('a sole writer does not note its own changes again, and is trusted while its feed reconnects', () => {
    const feed = new FakeFeed();
    const freshness = new HeardChanges(feed, { ttlSeconds: 60, soleWriter: true });
    expect(freshness.heard(['p:1'])).toBe(false);
    expect(freshness.stale(feed.time, ['p:1'])).toBe(false);
    feed.listening = false;
    expect(freshness.trusted).toBe(true);
  });
});
