// The response cache in front of every read route: one layer for GraphQL and
// REST. A response is stored with the tags of the products it shows; a write
// invalidates those tags. Concurrent misses for one key run the read once
// (single flight). Store failures are misses: Postgres answers, a warning is
// logged and counted, and nothing waits longer than the store's timeout.
import type { Redis } from 'ioredis';
import { RedisStore } from './redis-store.ts';
import type { CacheStats, CacheStore } from './store.ts';

export interface CachedResponse {
  /** The body, exactly as sent. */
  body: string;
  status: number;
  tags: string[];
  /** The response's ETag header, when it has one (a product's version). */
  etag?: string;
}

export const productTag = (id: number) => `p:${id}`;
/** Responses whose content shifts when products are created or deleted (listing pages). */
export const LISTING_TAG = 'listing';

const RETRY_MS = 200;

export class ResponseCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, errors: 0 };
  private readonly store: CacheStore;
  private readonly ttlSeconds: number;
  private readonly warn: (message: string, error: unknown) => void;
  private readonly inFlight = new Map<string, Promise<CachedResponse>>();
  /**
   * Tags whose invalidation could not reach the store (Redis down): entries
   * showing the old data may still be there. They are retried every
   * RETRY_MS until the store answers; meanwhile this instance reads nothing
   * from the store. (Another instance could serve such an entry in the
   * moments between Redis coming back and the retry: at most RETRY_MS.)
   */
  private readonly pendingTags = new Set<string>();
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(store: CacheStore, options: { ttlSeconds: number; warn: (message: string, error: unknown) => void }) {
    this.store = store;
    this.ttlSeconds = options.ttlSeconds;
    this.warn = options.warn;
  }

  get kind(): CacheStore['kind'] {
    return this.store.kind;
  }

  /** The Redis connection, when the store is Redis (persisted queries share it). */
  get redisClient(): Redis | undefined {
    return this.store instanceof RedisStore ? this.store.client : undefined;
  }

  private failed(what: string, error: unknown): void {
    this.stats.errors++;
    this.warn(`response cache: ${what} failed, answering from Postgres`, error);
  }

  /** Invalidations still waiting for the store to come back. */
  get pendingInvalidations(): number {
    return this.pendingTags.size;
  }

  private async read(key: string): Promise<CachedResponse | undefined> {
    if (this.pendingTags.size > 0) return undefined;
    try {
      const raw = await this.store.get(key);
      return raw === undefined ? undefined : (JSON.parse(raw) as CachedResponse);
    } catch (error) {
      this.failed('read', error);
      return undefined;
    }
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
   * Call before reading from Postgres; pass the token to save(). A response
   * read while any instance invalidated something may predate that write, so
   * the store refuses it (it is still served to this request). Undefined when
   * the store cannot say: then nothing is stored.
   */
  async begin(): Promise<number | undefined> {
    if (this.pendingTags.size > 0) return undefined;
    try {
      return await this.store.generation();
    } catch (error) {
      this.failed('read', error);
      return undefined;
    }
  }

  /** A cached response, or undefined (a miss, or the store is unavailable). */
  async lookup(key: string): Promise<CachedResponse | undefined> {
    const cached = await this.read(key);
    if (cached) this.stats.hits++;
    else this.stats.misses++;
    return cached;
  }

  /** Stores a response read after begin() returned `token`, unless a write was invalidated since. */
  save(key: string, response: CachedResponse, token: number | undefined): void {
    if (token === undefined || this.pendingTags.size > 0) return;
    this.store.set(key, JSON.stringify(response), response.tags, this.ttlSeconds, token).catch((error: unknown) => this.failed('write', error));
  }

  /** The cached response for `key`, or `produce()`'s, stored for next time. */
  async fetch(key: string, produce: () => Promise<CachedResponse>): Promise<CachedResponse & { hit: boolean }> {
    const cached = await this.read(key);
    if (cached) {
      this.stats.hits++;
      return { ...cached, hit: true };
    }
    this.stats.misses++;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.begin().then(async (token) => {
        const response = await produce();
        this.save(key, response, token);
        return response;
      });
      this.inFlight.set(key, pending);
      const settled = () => { this.inFlight.delete(key); };
      pending.then(settled, settled);
    }
    return { ...(await pending), hit: false };
  }

  /**
   * Moves whenever products are created or deleted through any instance
   * (listing pages shift): instances rebuild their page anchors when it moves.
   * Undefined when the store cannot say.
   */
  async listingVersion(): Promise<number | undefined> {
    if (this.pendingTags.size > 0) return undefined;
    try {
      return await this.store.counter(LISTING_TAG);
    } catch {
      return undefined;
    }
  }

  /** Drops every entry showing any of these products (and listings, when asked). */
  async invalidate(tags: string[]): Promise<void> {
    try {
      if (tags.includes(LISTING_TAG)) await this.store.bump(LISTING_TAG);
      await this.store.invalidate(tags);
    } catch (error) {
      for (const tag of tags) this.pendingTags.add(tag);
      this.failed('invalidation (retrying until the store is back)', error);
      this.scheduleRetry();
    }
  }

  close(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    return this.store.close();
  }
}
