// A bounded map whose entries carry tags, so that an invalidation drops
// exactly the entries showing a changed product. The in-process store
// (./memory-store.ts) and the local tier in front of Redis
// (./response-cache.ts) are both this.
//
// Eviction is second chance (CLOCK), an approximation of least recently used:
// a hit only marks its entry; eviction takes the oldest entry, or, if it was
// used since it was last passed over, moves it last and looks at the next.
// A strict LRU moves the entry on every hit, which stores the request's
// (new) key string into the long-lived map: on the hot-set REST hit at
// 10,000 entries, that makes the map's get 5% of the process's CPU.

interface Slot<V> { value: V; tags: readonly string[]; weight: number; used: boolean }

export class TaggedLru<V> {
  private readonly entries = new Map<string, Slot<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  private readonly limit: number;
  private readonly weigh: (value: V) => number;
  private total = 0;
  /** Moves on every invalidation and clear: a value read before one is not stored after it (`set`'s `ifGeneration`). */
  generation = 0;

  /** Holds at most `limit` in total of `weigh(value)` (default: one per entry). */
  constructor(limit: number, weigh: (value: V) => number = () => 1) {
    this.limit = limit;
    this.weigh = weigh;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The sum of the entries' weights. */
  get weight(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    const slot = this.entries.get(key);
    if (!slot) return undefined;
    slot.used = true;
    return slot.value;
  }

  /**
   * Stores the value (replacing the key's), unless `ifGeneration` is given and
   * an invalidation happened since, or it alone weighs more than the limit.
   * Evicts entries beyond the limit, the least recently used first (roughly). True if stored.
   */
  set(key: string, value: V, tags: readonly string[], ifGeneration?: number): boolean {
    if (ifGeneration !== undefined && ifGeneration !== this.generation) return false;
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.limit) return false;
    this.entries.set(key, { value, tags, weight, used: false });
    this.total += weight;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.total > this.limit) this.evictOne(key);
    return true;
  }

  /** Evicts one entry other than `kept` (the one just stored). */
  private evictOne(kept: string): void {
    for (const [key, slot] of this.entries) {
      if (key === kept) continue;
      if (!slot.used) return this.delete(key);
      slot.used = false;
      this.entries.delete(key);
      this.entries.set(key, slot);
    }
  }

  delete(key: string): void {
    const slot = this.entries.get(key);
    if (!slot) return;
    this.entries.delete(key);
    this.total -= slot.weight;
    for (const tag of slot.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }

  /** Drops every entry carrying any of `tags`. */
  invalidate(tags: readonly string[]): void {
    this.generation++;
    for (const tag of tags) {
      for (const key of this.byTag.get(tag) ?? []) this.delete(key);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byTag.clear();
    this.total = 0;
  }
}
