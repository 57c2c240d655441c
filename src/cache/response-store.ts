// The response cache's store access: entries read and written in their
// stored form (src/cache/entry.ts) in a CacheStore (Redis or in-process),
// stale ones refused by freshness, and invalidations made to last.
//
// Store failures are misses: Postgres answers, a warning is logged and
// counted, and nothing waits longer than the store's timeout. An invalidation
// the store could not take (Redis down) is retried every RETRY_MS until it
// does; meanwhile this instance reads and stores nothing (another instance
// could serve such an entry in the moments between Redis coming back and the
// retry: at most RETRY_MS).
//
// With Redis and the change feed, each instance also keeps the entries it
// served from Redis in a bounded local tier (CACHE_LOCAL_MB): a hit found
// there costs no entry fetch, only a share of one check per event-loop turn
// that Redis's invalidation counter has not moved since the entry was
// fetched (so a write acknowledged by any instance is never read older here,
// as without the tier). The feed drops the entries showing what it hears, a
// reconnected feed drops everything, the instance's own invalidations drop
// theirs at once, and an entry is never filled from a Redis read that started
// before any of those (the tier's generation).
import type { Redis } from 'ioredis';
import { type CachedResponse, type CacheToken, decodeStored, encodeStored, type StoredResponse } from './entry.ts';
import type { Freshness } from './freshness.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import type { CacheStats, CacheStore } from './store.ts';
import { TaggedLru } from './tagged-lru.ts';

const RETRY_MS = 200;
/** Responses whose content shifts when products are created or deleted (listing pages). */
export const LISTING_TAG = 'listing';

/** A local copy of a Redis entry, Redis's invalidation counter when it was fetched, and what it weighs against CACHE_LOCAL_MB. */
interface LocalEntry { stored: StoredResponse; storeGeneration: number; weight: number }
/** Longer keys (a URL or variables padded to make entries) are not kept locally. */
const MAX_LOCAL_KEY_LENGTH = 2_048;
/** V8 keeps a string in one byte a character when every character fits, else two. */
const stringBytes = (text: string) => text.length * (/[^\u0000-\u00ff]/.test(text) ? 2 : 1);
/** The memory a local entry holds: the entry as Redis gave it (the body is a slice of it), its key, and an allowance for the rest (tags, objects, map slots). */
const localWeight = (key: string, raw: string) => stringBytes(raw) + stringBytes(key) + 256;

/** How recently a shared store's counter must have been heard to stand for it (see recentGeneration). */
const KNOWN_GENERATION_MS = 1_000;

/** A lookup: the entry, if one may be served, and the store's counter as it found it (null: nothing may be stored). */
export interface Lookup { stored?: StoredResponse; generation?: number | null }

export interface ResponseStoreOptions {
  ttlSeconds: number;
  freshness: Freshness;
  /** The local tier's size in front of a shared store (0: none). */
  localBytes: number;
  /** Counts failures, local hits and refusals. */
  stats: Pick<CacheStats, 'errors' | 'localHits' | 'refused'>;
  warn: (message: string, error: unknown) => void;
}

export class ResponseStore {
  readonly store: CacheStore;
  readonly local: TaggedLru<LocalEntry> | undefined;
  private readonly ttlSeconds: number;
  private readonly freshness: Freshness;
  private readonly stats: ResponseStoreOptions['stats'];
  private readonly warn: ResponseStoreOptions['warn'];
  /** Tags whose invalidation could not reach the store: retried until it answers. */
  private readonly pendingTags = new Set<string>();
  /** Stores (and counter starts) sent without waiting for them: a request never waits for its response's store. */
  private readonly background = new Set<Promise<unknown>>();
  private retryTimer: NodeJS.Timeout | undefined;
  /** A shared store's invalidation counter as its last answer gave it, and when that answer came. */
  private knownGeneration: { generation: number; at: number } | undefined;
  private turnCheck: Promise<number> | undefined;

  constructor(store: CacheStore, options: ResponseStoreOptions & { localTier: boolean }) {
    this.store = store;
    this.ttlSeconds = options.ttlSeconds;
    this.freshness = options.freshness;
    this.stats = options.stats;
    this.warn = options.warn;
    this.local = options.localTier && options.localBytes > 0 && store.getWithGeneration && store.checkGeneration
      ? new TaggedLru(options.localBytes, (entry) => entry.weight) : undefined;
    // Redis back after losing the connection may be another Redis (a failover,
    // a restart without its data) whose invalidation counter can repeat
    // values: nothing fetched before is trusted.
    if (store instanceof RedisStore) {
      store.client.on('ready', () => {
        this.local?.clear();
        this.knownGeneration = undefined;
      });
    }
  }

  /** The Redis connection, when the store is Redis. */
  get redisClient(): Redis | undefined {
    return this.store instanceof RedisStore ? this.store.client : undefined;
  }

  /** False while this instance may be missing writes: its own invalidations not through yet, or freshness not trusted. */
  get usable(): boolean {
    return this.pendingTags.size === 0 && this.freshness.trusted;
  }

  /** Invalidations still waiting for the store to come back. */
  get pendingInvalidations(): number {
    return this.pendingTags.size;
  }

  failed(what: string, error: unknown): void {
    this.stats.errors++;
    this.warn(`response cache: ${what} failed, answering from Postgres`, error);
  }

  /**
   * The entry for `key`, if one may be served, and the store's invalidation
   * counter as the lookup found it, when it can say (a shared store reads it
   * with the entry, in one command): a miss's read from Postgres begins after
   * it, so it is the token's generation. `generation` is null when the store failed.
   */
  async get(key: string): Promise<Lookup> {
    try {
      if (this.local) {
        const local = await this.readLocal(key);
        if (local !== undefined) return { stored: local };
      }
      const localGeneration = this.local?.generation;
      const { value: raw, generation } = this.store.getWithGeneration
        ? await this.store.getWithGeneration(key)
        : { value: await this.store.get(key), generation: undefined };
      if (generation) this.knownGeneration = { generation, at: performance.now() };
      if (raw === undefined) return { generation };
      const stored = decodeStored(raw);
      if (stored === undefined) return { generation }; // not this format (an entry of an older version): a miss
      if (this.freshness.stale(stored.readAt, stored.tags)) {
        this.stats.refused++;
        return { generation };
      }
      if (this.local && key.length <= MAX_LOCAL_KEY_LENGTH) {
        // Unless a change was heard or an invalidation made while Redis
        // answered. Not while Redis has no counter (0): it is started for next time.
        if (generation! > 0) this.local.set(key, { stored, storeGeneration: generation!, weight: localWeight(key, raw) }, stored.tags, localGeneration);
        else this.inBackground(this.store.checkGeneration!().catch(() => { /* a read will say */ }));
      }
      return { stored };
    } catch (error) {
      this.failed('read', error);
      return { generation: null };
    }
  }

  /** Stores a response read after the token was taken, unless a write was invalidated (or a change heard) since. */
  set(key: string, response: CachedResponse, token: CacheToken): void {
    if (!this.usable) return;
    // A change heard since the read began: the response may be old; nobody would serve it.
    if (this.freshness.stale(token.readAt, response.tags)) return;
    const stored: StoredResponse = { ...response, readAt: token.readAt };
    this.inBackground(this.store.set(key, encodeStored(stored), response.tags, this.ttlSeconds, token.generation).catch((error: unknown) => this.failed('write', error)));
  }

  private inBackground(work: Promise<unknown>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /** Resolves once every store sent in the background so far has been answered (what tests wait for). */
  async backgroundSettled(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** Drops every entry showing any of these products (and listings, when asked), for every instance sharing the store. */
  async invalidate(tags: string[]): Promise<void> {
    // This instance's own copies first: its next read goes to the store.
    this.local?.invalidate(tags);
    try {
      if (tags.includes(LISTING_TAG)) await this.store.bump(LISTING_TAG);
      await this.store.invalidate(tags);
    } catch (error) {
      for (const tag of tags) this.pendingTags.add(tag);
      this.failed('invalidation (retrying until the store is back)', error);
      this.scheduleRetry();
    }
  }

  /** Changes heard (freshness refuses their entries anywhere): the in-process store and the local tier drop them now. */
  dropHeard(tags: readonly string[]): void {
    if (this.store instanceof MemoryStore) void this.store.invalidate(tags);
    this.local?.invalidate(tags);
  }

  /** Anything may have changed: the in-process store and the local tier drop everything. */
  dropAll(): void {
    if (this.store instanceof MemoryStore) this.store.clear();
    this.local?.clear();
  }

  /**
   * A token for a response about to be read from Postgres: a response read
   * while any instance invalidated something may predate that write, so the
   * store refuses it. Undefined when the store cannot say: then nothing is
   * stored. `generation`: the counter the lookup found, if it knew it
   * (null: the lookup found the store failing or unusable).
   */
  async token(readAt: number, generation: number | null | undefined): Promise<CacheToken | undefined> {
    if (!this.usable || generation === null) return undefined;
    if (generation !== undefined) return { generation, readAt };
    try {
      return { generation: await this.store.generation(), readAt };
    } catch (error) {
      this.failed('read', error);
      return undefined;
    }
  }

  /** The store's invalidation counter now (null when it fails). */
  generation(): Promise<number | null> {
    return this.store.generation().catch(() => null);
  }

  /** A shared store's counter, when heard in the last KNOWN_GENERATION_MS and the store is usable. */
  recentGeneration(): number | undefined {
    const known = this.knownGeneration;
    if (known === undefined || performance.now() - known.at > KNOWN_GENERATION_MS || !this.usable) return undefined;
    return known.generation;
  }

  /** A counter shared by every instance: moves whenever products are created or deleted (undefined when the store cannot say). */
  async listingVersion(): Promise<number | undefined> {
    if (this.pendingTags.size > 0) return undefined;
    try {
      return await this.store.counter(LISTING_TAG);
    } catch {
      return undefined;
    }
  }

  close(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.local?.clear();
    return this.store.close();
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      const tags = [...this.pendingTags];
      this.store.invalidate(tags).then(
        () => { for (const tag of tags) this.pendingTags.delete(tag); },
        () => this.scheduleRetry(),
      );
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /**
   * The store's invalidation counter, asked once at the end of this
   * event-loop turn (setImmediate) for every local hit of the turn: asked
   * after each of their requests arrived, so after any write acknowledged
   * before them. A check already sent is never shared with a later request.
   */
  private storeGenerationNow(): Promise<number> {
    return this.turnCheck ??= new Promise((resolve, reject) => setImmediate(() => {
      this.turnCheck = undefined;
      this.store.checkGeneration!().then((generation) => {
        this.knownGeneration = { generation, at: performance.now() };
        resolve(generation);
      }, reject);
    }));
  }

  /** The local copy of `key`, if Redis's counter shows no invalidation since it was fetched and nothing since dropped it. */
  private async readLocal(key: string): Promise<StoredResponse | undefined> {
    const local = this.local!;
    const entry = local.get(key);
    if (entry === undefined) return undefined;
    if (this.freshness.stale(entry.stored.readAt, entry.stored.tags)) {
      local.delete(key); // too old now (beyond the TTL, or a change heard): Redis may have a newer one
      return undefined;
    }
    // The turn's hits are answered together, as Redis's pipelined replies
    // are: their responses go out in one burst of writes. Answered one by
    // one, each write to a waiting client pays its wake-up, which costs a
    // hot-set REST hit more Node CPU than everything else it does.
    const dropsBefore = local.generation;
    const generation = await this.storeGenerationNow();
    // Dropped meanwhile by an invalidation or a clear? Both move the tier's
    // generation (an eviction does not: what it dropped was still valid).
    if (generation !== entry.storeGeneration || !this.usable || (local.generation !== dropsBefore && local.get(key) !== entry)) return undefined;
    this.stats.localHits++;
    return entry.stored;
  }
}
