// The admission filter's memory (src/cache/seen-keys.ts): a key is sighted
// the second time it is asked while remembered; a new key almost never is;
// the memory is bounded, so keys missed long ago are forgotten.
import { describe, expect, it } from 'vitest';
import { SeenKeys } from '../../src/cache/seen-keys.ts';

const keys = (from: number, count: number) => Array.from({ length: count }, (_, i) => `rest:/products/${from + i}/styles`);
const sightings = (seen: SeenKeys, list: string[]) => list.filter((key) => seen.sighted(key)).length;

describe('keys seen before (admission on the second miss)', () => {
  it('a key is new the first time, seen the second', () => {
    const seen = new SeenKeys();
    expect(seen.sighted('gql:abc:Page:{"id":"1"}')).toBe(false);
    expect(seen.sighted('gql:abc:Page:{"id":"1"}')).toBe(true);
    expect(seen.sighted('gql:abc:Page:{"id":"2"}')).toBe(false);
  });

  it('counts a key\'s sightings before this one: none, once, then twice or more; each key its own', () => {
    const seen = new SeenKeys();
    const list = keys(0, 1_000);
    expect(list.map((key) => seen.sightings(key)).filter((n) => n !== 0)).toEqual([]);
    expect(list.map((key) => seen.sightings(key)).filter((n) => n !== 1).length).toBeLessThan(5);
    expect(list.map((key) => seen.sightings(key)).filter((n) => n !== 2).length).toBeLessThan(5);
    expect(list.map((key) => seen.sightings(key)).filter((n) => n !== 2).length).toBeLessThan(5);
  });

  it('remembers most of the last hundred thousand keys; new keys are not taken for them', () => {
    const seen = new SeenKeys();
    const recent = keys(0, 100_000);
    expect(sightings(seen, recent)).toBe(0);
    // One slot per key among about a million: a few percent share one and forget each other.
    expect(sightings(seen, recent)).toBeGreaterThan(90_000);
    expect(sightings(seen, keys(1_000_000, 100_000))).toBeLessThan(5);
  });

  it('is bounded: after millions of other keys, the first ones are forgotten', () => {
    const seen = new SeenKeys();
    const first = keys(0, 10_000);
    sightings(seen, first);
    sightings(seen, Array.from({ length: 3_000_000 }, (_, i) => `k${i}`));
    expect(sightings(seen, first)).toBeLessThan(1_000);
  });
});
