// The response cache in front of every read route: one layer for GraphQL and
// REST, keyed by src/cache/cache-key.ts. A response is stored with the tags of
// the products it shows; a write invalidates those tags. It is made of four
// parts, each on its own and tested alone:
//
// - the store access (response-store.ts): entries in Redis or in process, a
//   local tier in front of Redis, invalidations made to last;
// - freshness (freshness.ts): entries read before a change the change feed
//   heard are never served, wherever they are stored; while the feed is not
//   listening, nothing is read or stored;
// - single flight (single-flight.ts): concurrent misses for one key reach
//   Postgres once;
// - admission (admission.ts): which misses are looked up and stored.
//
// This file decides how they meet, in `obtain`: look up, share a running
// read, or take the turn to produce the response with a token that lets the
// store refuse it if a write was invalidated meanwhile.
import type { Redis } from 'ioredis';
import { AdmissionFilter, type Admission } from './admission.ts';
import type { CachedResponse, StoredResponse } from './entry.ts';
import { type ChangeListening, HeardChanges } from './freshness.ts';
import { RedisStore } from './redis-store.ts';
import { LISTING_TAG, type Lookup, ResponseStore } from './response-store.ts';
import { type Flight, SingleFlight } from './single-flight.ts';
import type { CacheStats, CacheStore } from './store.ts';

export type { Admission } from './admission.ts';
export type { CachedResponse, CacheToken } from './entry.ts';
export { decodeStored, encodeStored } from './entry.ts';
export { type ChangeListening, HEARD_MARGIN_MS } from './freshness.ts';
export { LISTING_TAG } from './response-store.ts';

export const productTag = (id: number) => `p:${id}`;
/**
 * Responses that any write can change: filtered or reordered pages, searches
 * and facets (a rename moves a product in or out of a search, a new price
 * out of a price filter and into another band).
 */
export const BROWSE_TAG = 'browse';

/** The tags a write of these products makes stale: theirs, browse answers, and listings when products appeared or vanished. */
export function changeTags(ids: readonly number[], change: 'created' | 'updated' | 'deleted'): string[] {
  return [...ids.map(productTag), BROWSE_TAG, ...(change === 'updated' ? [] : [LISTING_TAG])];
}

/** How a response was found: cached, shared with an identical request running meanwhile, or read from Postgres. */
export type Outcome = 'hit' | 'shared' | 'miss';

/** What `obtain` found: a response, or the turn to produce one and `settle` it (`stores`: whether settling it may store it). */
export type Obtained =
  | { outcome: 'hit' | 'shared'; response: CachedResponse }
  | { outcome: 'miss'; stores: boolean; settle(response: CachedResponse | undefined): void };

/** A cheap read's first sighting under the doorkeeper: produced as with the cache off, nothing to settle. */
const FIRST_SIGHTING: Obtained = Object.freeze({ outcome: 'miss', stores: false, settle: () => {} });
/** A miss that waited for a read it could not use: produced for itself, not stored. */
const UNSHARED: Obtained = Object.freeze({ outcome: 'miss', stores: false, settle: () => {} });

export interface ResponseCacheOptions {
  ttlSeconds: number;
  warn: (message: string, error: unknown) => void;
  /** The change feed: with it, writes heard are never served stale, and nothing is served while it is not listening. */
  feed?: ChangeListening;
  /** The local tier's size in front of a shared store (0: none); used only with a feed (without it, other instances' writes would go unheard). */
  localBytes?: number;
  /** The only process writing through the API (its own store): serves on while its feed reconnects. */
  soleWriter?: boolean;
  /** When a miss is stored (default: every miss). */
  admission?: Admission;
}

export class ResponseCache {
  readonly stats: CacheStats;
  /** The store itself (Redis or in process). */
  readonly store: CacheStore;
  private readonly entries: ResponseStore;
  private readonly freshness: HeardChanges;
  private readonly flights = new SingleFlight();
  private readonly admission: AdmissionFilter;

  constructor(store: CacheStore, options: ResponseCacheOptions) {
    this.store = store;
    this.admission = new AdmissionFilter(options.admission ?? 'first-miss');
    const feed = options.feed;
    this.freshness = new HeardChanges(feed, { ttlSeconds: options.ttlSeconds, soleWriter: options.soleWriter === true && !(store instanceof RedisStore) });
    const entries = () => this.entries;
    this.stats = {
      hits: 0, localHits: 0, misses: 0, unadmitted: 0, firstSightings: 0, secondSightings: 0, errors: 0, refused: 0, unheard: 0,
      get changeFeed() { return feed ? (feed.listening ? 'listening' : 'reconnecting') : 'off'; },
      get local() {
        const local = entries().local;
        return local ? { entries: local.size, bytes: local.weight } : undefined;
      },
    };
    this.entries = new ResponseStore(store, {
      ttlSeconds: options.ttlSeconds, freshness: this.freshness, localBytes: options.localBytes ?? 0, localTier: feed !== undefined, stats: this.stats, warn: options.warn,
    });
  }

  get kind(): CacheStore['kind'] {
    return this.store.kind;
  }

  /** Resolves once every store sent in the background so far has been answered (what tests wait for). */
  backgroundSettled(): Promise<void> {
    return this.entries.backgroundSettled();
  }

  /** The Redis connection, when the store is Redis (persisted queries share it). */
  get redisClient(): Redis | undefined {
    return this.entries.redisClient;
  }

  /** Invalidations still waiting for the store to come back. */
  get pendingInvalidations(): number {
    return this.entries.pendingInvalidations;
  }

  /** The lookup, unless this instance may be missing writes (then nothing is read or stored). */
  private async read(key: string): Promise<Lookup> {
    if (!this.entries.usable) {
      if (!this.freshness.listening) this.stats.unheard++;
      return { generation: null };
    }
    return this.entries.get(key);
  }

  /**
   * The change feed heard that these tags changed (a committed write, by any
   * instance): entries read before now are not served from here on, wherever
   * they are stored. The in-process store and the local tier drop them.
   */
  heard(tags: readonly string[]): void {
    if (this.freshness.heard(tags)) this.entries.dropHeard(tags);
  }

  /** Anything may have changed (the feed reconnected after a gap): no entry read before now is served. */
  heardEverything(): void {
    if (this.freshness.heardEverything()) this.entries.dropAll();
  }

  /**
   * The cached response for `key` ('hit'), or one an identical request
   * running meanwhile produced ('shared': single flight, so concurrent misses
   * reach Postgres once), or the turn to produce it ('miss'): the caller
   * reads it from Postgres and passes it to `settle` (undefined when it is
   * not to be kept, a result with errors), which stores it and hands it to
   * the requests waiting for it. With the doorkeeper, a `cheap` read's first
   * sighting is a miss at once: no lookup, no store, no single flight (nobody
   * here is producing a key never sighted), as with the cache off.
   */
  async obtain(key: string, cheap = false): Promise<Obtained> {
    const sightings = this.admission.sightings(key, cheap);
    if (sightings === 0) {
      this.stats.misses++;
      this.stats.firstSightings++;
      return FIRST_SIGHTING;
    }
    const second = sightings === 1 ? this.secondSighting() : undefined;
    const found = second ?? await this.read(key);
    if (found.stored) {
      this.stats.hits++;
      return { outcome: 'hit', response: found.stored };
    }
    this.stats.misses++;
    // Checked in this turn: a request that finds no read running takes the
    // turn before any identical request's lookup returns (no await between).
    const running = second ? undefined : this.flights.get(key);
    const shared = running && await this.share(running, found);
    return shared || this.produce(key, found);
  }

  /**
   * A running read of `key` this request may wait for, and what came of it:
   * only if the store's counter, as this request's lookup found it, is still
   * the one from before that read began (and no change of what it shows was
   * heard since): a write acknowledged before the request arrived, by any
   * instance, moved the counter, and a read begun before that write would
   * show the old data. Waiting stops after FOLLOW_TIMEOUT_MS: the request
   * then produces its own, storing nothing. Undefined: the read may not be shared.
   */
  private async share(running: Flight, found: Lookup): Promise<Obtained | undefined> {
    // The counter as it is since this request arrived: its lookup's; a store
    // without lookups' counter (in-process) is asked.
    const counter = found.generation !== undefined ? found.generation : await this.entries.generation();
    const before = counter !== null ? await running.began : undefined;
    if (before === undefined || before.generation !== counter) return undefined;
    const response = await SingleFlight.follow(running);
    return response && !this.freshness.stale(before.readAt, response.tags) ? { outcome: 'shared', response } : UNSHARED;
  }

  /**
   * The turn to produce `key`: a flight later identical requests may wait
   * for, and a token taken now, before the read from Postgres begins (a
   * change committed earlier is in what it reads). The token's counter is the
   * lookup's, read before (an invalidation since refuses the store). A
   * counter not started yet (0) may be started by any instance meanwhile (a
   * local tier's check does): it is asked again then, and the read waits for
   * the answer, since a counter read after the read began could already count
   * a write the read missed. Taken whether or not it is stored: it also tells
   * who may share the read.
   */
  private async produce(key: string, found: Lookup): Promise<Obtained> {
    const stores = this.admission.admits(key);
    if (!stores) this.stats.unadmitted++;
    const began = this.entries.token(this.freshness.now(), found.generation === 0 ? undefined : found.generation);
    const { settle } = this.flights.set(key, began);
    const taken = await began;
    const token = stores ? taken : undefined;
    return {
      outcome: 'miss',
      stores,
      settle: (response) => {
        settle(response);
        if (response && token) this.entries.set(key, response, token);
      },
    };
  }

  /**
   * A cheap read's second sighting under the doorkeeper, when a shared
   * store's counter was heard lately: stored without a lookup. Its first
   * sighting stored nothing, so only another process (or a sighting this one
   * forgot) could have stored it, and the lookup would nearly always miss: a
   * round trip and its wake-ups for nothing. The token is the counter last
   * heard, read before this read begins: an invalidation since refuses the
   * store. Undefined when no counter was heard lately: the lookup then asks.
   */
  private secondSighting(): Lookup | undefined {
    const generation = this.entries.recentGeneration();
    if (generation === undefined) return undefined;
    this.stats.secondSightings++;
    return { generation };
  }

  /** The cached (or shared) response for `key`, or `produce()`'s, stored for next time (REST reads; `cheap`: as for obtain). */
  async fetch(key: string, produce: () => Promise<CachedResponse>, cheap = false): Promise<CachedResponse & { outcome: Outcome }> {
    const obtained = await this.obtain(key, cheap);
    if (obtained.outcome !== 'miss') {
      const { readAt: _readAt, ...response } = obtained.response as StoredResponse;
      return { ...response, outcome: obtained.outcome };
    }
    let response: CachedResponse;
    try {
      response = await produce();
    } catch (error) {
      obtained.settle(undefined);
      throw error;
    }
    obtained.settle(response);
    return { ...response, outcome: 'miss' };
  }

  /**
   * Moves whenever products are created or deleted through any instance
   * (listing pages shift): instances rebuild their page anchors when it moves.
   * Undefined when the store cannot say.
   */
  listingVersion(): Promise<number | undefined> {
    return this.entries.listingVersion();
  }

  /** Drops every entry showing any of these products (and listings, when asked). */
  invalidate(tags: string[]): Promise<void> {
    return this.entries.invalidate(tags);
  }

  close(): Promise<void> {
    return this.entries.close();
  }
}
