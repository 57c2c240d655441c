// Where cached responses live. Entries carry tags (the products they contain),
// so a write can drop exactly the entries that show the product it changed.
export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | undefined>;
  /**
   * The entry and the invalidation counter (`generation`) read together, in
   * one step: a shared store has it, for a local tier in front of it.
   */
  getWithGeneration?(key: string): Promise<{ value: string | undefined; generation: number }>;
  /**
   * The invalidation counter, started first if it is absent (0 from
   * `generation` and `getWithGeneration`) at a value it never had before: a
   * shared store has it, for a local tier's checks.
   */
  checkGeneration?(): Promise<number>;
  /**
   * The store's invalidation counter: every invalidation, by any instance,
   * moves it. A response read from Postgres is stored only if the counter has
   * not moved since before the read (see `set`'s `ifGeneration`).
   */
  generation(): Promise<number>;
  /** Stores the entry, unless `ifGeneration` is given and an invalidation happened since. */
  set(key: string, value: string, tags: readonly string[], ttlSeconds: number, ifGeneration?: number): Promise<void>;
  /** A named counter shared by every instance (read; 0 when never bumped). */
  counter(name: string): Promise<number>;
  bump(name: string): Promise<void>;
  /** Drops every entry tagged with any of `tags`, for every instance sharing the store. */
  invalidate(tags: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Counters for operators (and the metrics endpoint, later). */
export interface CacheStats {
  /** Every hit, wherever it was found. */
  hits: number;
  /** Hits found in this instance's local tier in front of Redis (CACHE_LOCAL_MB), without a round trip. */
  localHits: number;
  misses: number;
  /** Misses not stored: their key's first miss in this process, under admission on the second miss (CACHE_ADMISSION). */
  unadmitted: number;
  /** Cheap reads answered without a lookup: their key's first sighting in this process, under the doorkeeper (CACHE_ADMISSION). Counted in misses too. */
  firstSightings: number;
  /** Cheap reads stored at their second sighting in this process without a lookup, under the doorkeeper with a shared store (CACHE_ADMISSION). Counted in misses too. */
  secondSightings: number;
  /** Store operations that failed (Redis down or slow) and fell back to Postgres. */
  errors: number;
  /** Entries found but not served: read before a change the change feed reported (the writer's invalidation had not reached the store). */
  refused: number;
  /** Reads that skipped the cache because the change feed was not listening (this instance could be missing writes). */
  unheard: number;
  /** The change feed: listening, reconnecting (the cache serves nothing meanwhile), or off. */
  readonly changeFeed: 'listening' | 'reconnecting' | 'off';
  /** The local tier's size now, when there is one. */
  readonly local: { entries: number; bytes: number } | undefined;
}
