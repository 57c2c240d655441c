// Deterministic randomness. Every value is derived from (seed, stream, index)
// by hashing, never from shared sequential state, so each file can be written
// independently (and in parallel) and the same seed always gives the same bytes.

/** 32-bit finaliser from MurmurHash3: a cheap, well-mixed hash of an integer. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hash3(a: number, b: number, c: number): number {
  return fmix32(Math.imul(fmix32(Math.imul(fmix32(a), 0x9e3779b1) ^ b), 0x85ebca77) ^ c);
}

/** A small generator (mulberry32) seeded per entity, for the several values of one row. */
export class Rng {
  private state: number;
  constructor(seed: number, stream: number, index: number) {
    this.state = hash3(seed, stream, index);
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** Streams (one per kind of entity) keep unrelated draws independent. */
export const Stream = {
  product: 1,
  productStyles: 2,
  productFeatures: 3,
  productRelated: 4,
  style: 5,
  stylePhotos: 6,
  styleSkus: 7,
  feature: 8,
  photo: 9,
  sku: 10,
  related: 11,
  orphan: 12,
} as const;

/**
 * Zipf-like draws over a list in frequency order: item k (from 1) comes up
 * in proportion to 1 / k^exponent, so a few items are very common and the
 * rest a long tail. One table per list length, drawn by binary search.
 */
export class Zipf {
  private readonly cumulative: Float64Array;
  constructor(size: number, exponent = 1) {
    this.cumulative = new Float64Array(size);
    let sum = 0;
    for (let k = 0; k < size; k++) this.cumulative[k] = sum += 1 / (k + 1) ** exponent;
    for (let k = 0; k < size; k++) this.cumulative[k]! /= sum;
  }
  index(rng: Rng): number {
    const u = rng.next();
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.cumulative[mid] as number) <= u) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
