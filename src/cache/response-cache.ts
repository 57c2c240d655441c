// The response cache in front of every read route: one layer for GraphQL and
// REST. A response is stored with the tags of the products it shows; a write
// invalidates those tags. Concurrent misses for one key run the read once
// (single flight). Store failures are misses: Postgres answers, a warning is
// logged and counted, and nothing waits longer than the store's timeout.
import type { CacheStats, CacheStore } from './store.ts';

export interface CachedResponse {
  /** The body, exactly as sent. */
  body: string;
  status: number;
  tags: string[];
}

export const productTag = (id: number) => `p:${id}`;
/** Responses whose content shifts when products are created or deleted (listing pages). */
export const LISTING_TAG = 'listing';

export class ResponseCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, errors: 0 };
  private readonly store: CacheStore;
  private readonly ttlSeconds: number;
  private readonly warn: (message: string, error: unknown) => void;
  private readonly inFlight = new Map<string, Promise<CachedResponse>>();
  /**
   * Set when an invalidation could not reach the store: entries written
   * before the change may still be there, so everything is dropped as soon as
   * the store answers again, and nothing is read from it until then.
   */
  private mustPurge = false;
  /**
   * Bumped by every invalidation in this process. A response read from
   * Postgres while a write was being invalidated may predate the write, so it
   * is served but not stored. (A write through another instance during the
   * few milliseconds of a read is not seen here: that entry can live until
   * its TTL. Known limit, see README.)
   */
  private generation = 0;

  constructor(store: CacheStore, options: { ttlSeconds: number; warn: (message: string, error: unknown) => void }) {
    this.store = store;
    this.ttlSeconds = options.ttlSeconds;
    this.warn = options.warn;
  }

  get kind(): CacheStore['kind'] {
    return this.store.kind;
  }

  private failed(what: string, error: unknown): void {
    this.stats.errors++;
    this.warn(`response cache: ${what} failed, answering from Postgres`, error);
  }

  private async read(key: string): Promise<CachedResponse | undefined> {
    if (this.mustPurge && !(await this.purge())) return undefined;
    try {
      const raw = await this.store.get(key);
      return raw === undefined ? undefined : (JSON.parse(raw) as CachedResponse);
    } catch (error) {
      this.failed('read', error);
      return undefined;
    }
  }

  private async purge(): Promise<boolean> {
    try {
      await this.store.invalidate(['*']);
      this.mustPurge = false;
      return true;
    } catch {
      return false;
    }
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
      const generation = this.generation;
      pending = produce();
      this.inFlight.set(key, pending);
      pending.then(
        (response) => {
          this.inFlight.delete(key);
          if (this.mustPurge || generation !== this.generation) return;
          // Every entry carries the '*' tag too, so a purge can find it.
          this.store.set(key, JSON.stringify(response), [...response.tags, '*'], this.ttlSeconds).catch((error: unknown) => this.failed('write', error));
        },
        () => this.inFlight.delete(key),
      );
    }
    return { ...(await pending), hit: false };
  }

  /** Drops every entry showing any of these products (and listings, when asked). */
  async invalidate(tags: string[]): Promise<void> {
    this.generation++;
    try {
      await this.store.invalidate(tags);
    } catch (error) {
      this.mustPurge = true;
      this.failed('invalidation', error);
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
