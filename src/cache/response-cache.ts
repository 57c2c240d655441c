// The response cache in front of every read route: one layer for GraphQL and
// REST. A response is stored with the tags of the products it shows; a write
// invalidates those tags. Concurrent misses for one key run the read once
// (single flight). Store failures are misses: Postgres answers, a warning is
// logged and counted, and nothing waits longer than the store's timeout.
//
// With a change feed (src/cache/change-feed.ts), every instance also hears
// every committed write through Postgres, whether or not the writer's
// invalidation reached the store: it remembers when it heard that each
// product changed, and serves no entry read before that moment (entries
// carry the time their read began, on the feed's clock). While the feed is
// not listening, it reads and stores nothing.
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
//
// A single process with its own cache that is the only writer through the
// API (config soleWriter) has its feed to hear loads replacing the
// catalogue (its own writes it drops when they commit): it keeps serving
// what it holds while the feed reconnects (a Postgres outage: nothing writes
// then), and drops everything once the feed is back.
import type { Redis } from 'ioredis';
import type { CacheAdmission } from '../config.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import type { CacheStats, CacheStore } from './store.ts';
import { SeenKeys } from './seen-keys.ts';
import { TaggedLru } from './tagged-lru.ts';

export interface CachedResponse {
  /** The body, exactly as sent. */
  body: string;
  status: number;
  tags: string[];
  /** The response's ETag header, when it has one (a product's version). */
  etag?: string;
  /** Its ETags by media type, for an answer sent in more than one (GraphQL: computed once, when stored). */
  etags?: Record<string, string>;
}

export const productTag = (id: number) => `p:${id}`;
/** Responses whose content shifts when products are created or deleted (listing pages). */
export const LISTING_TAG = 'listing';
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

const RETRY_MS = 200;

/**
 * What the response cache needs of the change feed: whether every committed
 * write is being heard, and a clock all instances share.
 */
export interface ChangeListening {
  readonly listening: boolean;
  /** Milliseconds since the epoch on a clock shared by every instance (Postgres's), within a few ms. */
  now(): number;
}

/**
 * How much the feed clocks of two instances may disagree (each is Postgres's
 * clock measured over a round trip of at most 40 ms). An entry whose read
 * began less than this after a change was heard is not served either.
 */
export const HEARD_MARGIN_MS = 50;
/** More remembered changes than this: remember one moment for all instead. */
const MAX_HEARD_TAGS = 100_000;

/** A local copy of a Redis entry, Redis's invalidation counter when it was fetched, and what it weighs against CACHE_LOCAL_MB. */
interface LocalEntry { stored: StoredResponse; storeGeneration: number; weight: number }
/** Longer keys (a URL or variables padded to make entries) are not kept locally. */
const MAX_LOCAL_KEY_LENGTH = 2_048;
/** V8 keeps a string in one byte a character when every character fits, else two. */
const stringBytes = (text: string) => text.length * (/[^\u0000-\u00ff]/.test(text) ? 2 : 1);
/** The memory a local entry holds: the entry as Redis gave it (the body is a slice of it), its key, and an allowance for the rest (tags, objects, map slots). */
const localWeight = (key: string, raw: string) => stringBytes(raw) + stringBytes(key) + 256;

/** A response read from Postgres, waiting to be stored: the store's generation and when the read began. */
export interface CacheToken {
  generation: number;
  /** On the feed's clock (the wall clock without a feed). */
  readAt: number;
}

/** How recently a shared store's counter must have been heard to be a second sighting's token (see secondSighting). */
const KNOWN_GENERATION_MS = 1_000;

/**
 * A miss being produced: its response, and the store's counter before its
 * read began with when it began (undefined when unknown: nobody shares it).
 */
interface Flight {
  response: Promise<CachedResponse | undefined>;
  began: Promise<CacheToken | undefined>;
}

/** How long a request waits for an identical one already running before running itself. */
const FOLLOW_TIMEOUT_MS = 2_000;

/** How a response was found: cached, shared with an identical request running meanwhile, or read from Postgres. */
export type Outcome = 'hit' | 'shared' | 'miss';

/** What `obtain` found: a response, or the turn to produce one and `settle` it (`stores`: whether settling it may store it). */
export type Obtained =
  | { outcome: 'hit' | 'shared'; response: CachedResponse }
  | { outcome: 'miss'; stores: boolean; settle(response: CachedResponse | undefined): void };

/** When a response is looked up and stored (src/config.ts, CACHE_ADMISSIONS; src/cache/seen-keys.ts remembers the keys). */
export type Admission = CacheAdmission;

/** A cheap read's first sighting under the doorkeeper: produced as with the cache off, nothing to settle. */
const FIRST_SIGHTING: Obtained = Object.freeze({ outcome: 'miss', stores: false, settle: () => {} });

/** What the store holds: the response and when its read began. */
interface StoredResponse extends CachedResponse {
  readAt?: number;
}

/**
 * How an entry is kept: one line of JSON with everything but the body, then
 * the body as it is. A hit then parses a few bytes of JSON instead of the whole
 * body as an escaped JSON string (a third of a hit's CPU for a product page).
 * JSON.stringify escapes line breaks, so the first newline ends the head.
 */
export function encodeStored({ body, ...head }: StoredResponse): string {
  return `${JSON.stringify(head)}\n${body}`;
}

/** The entry `raw` holds, or undefined when it is not one (another format). */
export function decodeStored(raw: string): StoredResponse | undefined {
  const end = raw.indexOf('\n');
  if (end === -1 || raw.charCodeAt(0) !== 0x7b /* { */) return undefined;
  const head = JSON.parse(raw.slice(0, end)) as Omit<StoredResponse, 'body'>;
  if (typeof head.status !== 'number' || !Array.isArray(head.tags)) return undefined;
  return { ...head, body: raw.slice(end + 1) };
}

export class ResponseCache {
  readonly stats: CacheStats;
  private readonly store: CacheStore;
  private readonly ttlSeconds: number;
  private readonly warn: (message: string, error: unknown) => void;
  /** Misses being produced, by key: identical requests meanwhile may wait for them (see obtain). */
  private readonly inFlight = new Map<string, Flight>();
  /**
   * Tags whose invalidation could not reach the store (Redis down): entries
   * showing the old data may still be there. They are retried every
   * RETRY_MS until the store answers; meanwhile this instance reads nothing
   * from the store. (Another instance could serve such an entry in the
   * moments between Redis coming back and the retry: at most RETRY_MS.)
   */
  private readonly pendingTags = new Set<string>();
  /** Stores (and counter starts) sent without waiting for them: a request never waits for its response's store. */
  private readonly background = new Set<Promise<unknown>>();
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly feed: ChangeListening | undefined;
  /** When the feed told this instance that each tag changed (feed clock). */
  private readonly heardAt = new Map<string, number>();
  /** When anything may have changed (the feed (re)connected): entries read before are not served. */
  private heardAllAt = Number.NEGATIVE_INFINITY;
  /** Entries served from Redis, kept here too (only with the feed: without it, other instances' writes would go unheard). */
  private readonly local: TaggedLru<LocalEntry> | undefined;
  /** The only process writing through the API: serves on while its feed reconnects. */
  private readonly soleWriter: boolean;
  private readonly admission: Admission;
  /** Keys missed (second-miss) or cheap keys sighted (doorkeeper) before; undefined under first-miss. */
  private readonly seen: SeenKeys | undefined;
  /**
   * A shared store's invalidation counter as its last answer gave it, and
   * when that answer came: a token for a read beginning later (see obtain).
   */
  private knownGeneration: { generation: number; at: number } | undefined;

  /**
   * `localBytes`: the local tier's size in front of a shared store (0: none); used only with a feed.
   * `admission`: when a miss is stored (default: every miss).
   */
  constructor(store: CacheStore, options: { ttlSeconds: number; warn: (message: string, error: unknown) => void; feed?: ChangeListening; localBytes?: number; soleWriter?: boolean; admission?: Admission }) {
    this.store = store;
    this.admission = options.admission ?? 'first-miss';
    this.seen = this.admission === 'first-miss' ? undefined : new SeenKeys();
    this.soleWriter = options.soleWriter === true && !(store instanceof RedisStore);
    this.ttlSeconds = options.ttlSeconds;
    this.warn = options.warn;
    this.feed = options.feed;
    const feed = options.feed;
    const localBytes = options.localBytes ?? 0;
    this.local = feed && localBytes > 0 && store.getWithGeneration && store.checkGeneration ? new TaggedLru(localBytes, (entry) => entry.weight) : undefined;
    const local = this.local;
    // Redis back after losing the connection may be another Redis (a failover,
    // a restart without its data) whose invalidation counter can repeat
    // values: nothing fetched before is trusted.
    if (store instanceof RedisStore) {
      store.client.on('ready', () => {
        local?.clear();
        this.knownGeneration = undefined;
      });
    }
    this.stats = {
      hits: 0, localHits: 0, misses: 0, unadmitted: 0, firstSightings: 0, secondSightings: 0, errors: 0, refused: 0, unheard: 0,
      get changeFeed() { return feed ? (feed.listening ? 'listening' : 'reconnecting') : 'off'; },
      get local() { return local ? { entries: local.size, bytes: local.weight } : undefined; },
    };
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

  /** False while this instance may be missing writes: its own invalidations not through yet, or the feed not listening. */
  private get usable(): boolean {
    return this.pendingTags.size === 0 && (!this.feed || this.feed.listening || this.soleWriter);
  }

  private turnCheck: Promise<number> | undefined;
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
    if (this.predatesHeardChange(entry.stored.readAt, entry.stored.tags)) {
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

  /**
   * Whether a response read from `readAt` on may predate a change this
   * instance heard of (or is older than the TTL, beyond which heard changes
   * are forgotten).
   */
  private predatesHeardChange(readAt: number | undefined, tags: readonly string[]): boolean {
    if (!this.feed) return false;
    if (readAt === undefined) return true;
    // A sole writer stamps reads and hears changes on its own clock: no other clock to disagree with.
    const before = readAt - (this.soleWriter ? 0 : HEARD_MARGIN_MS);
    if (before < this.heardAllAt || readAt < this.feed.now() - this.ttlSeconds * 1000) return true;
    for (const tag of tags) {
      const heard = this.heardAt.get(tag);
      if (heard !== undefined && before < heard) return true;
    }
    return false;
  }

  /**
   * The entry for `key`, if one may be served, and the store's invalidation
   * counter as the lookup found it, when it can say (a shared store reads it
   * with the entry, in one command): a miss's read from Postgres begins after
   * it, so it is the token's generation (see begin). `generation` is null
   * when nothing may be stored: the cache is not usable, or the store failed.
   */
  private async read(key: string): Promise<{ stored?: StoredResponse; generation?: number | null }> {
    if (!this.usable) {
      if (this.feed && !this.feed.listening) this.stats.unheard++;
      return { generation: null };
    }
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
      if (this.predatesHeardChange(stored.readAt, stored.tags)) {
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

  /**
   * The change feed heard that these tags changed (a committed write, by any
   * instance): entries read before now are not served from here on, wherever
   * they are stored. The in-process store drops them.
   */
  heard(tags: readonly string[]): void {
    // A sole writer's changes are its own, dropped when they committed: heard
    // again a moment later, they would only refuse entries read since.
    if (!this.feed || this.soleWriter) return;
    const now = this.feed.now();
    for (const tag of tags) {
      this.heardAt.delete(tag); // re-inserted last: the map stays in order of time heard
      this.heardAt.set(tag, now);
    }
    if (this.heardAt.size > MAX_HEARD_TAGS) this.forgetOldChanges(now);
    if (this.store instanceof MemoryStore) void this.store.invalidate(tags);
    this.local?.invalidate(tags);
  }

  /** Anything may have changed (the feed reconnected after a gap): no entry read before now is served. */
  heardEverything(): void {
    if (!this.feed) return;
    this.heardAllAt = this.feed.now();
    this.heardAt.clear();
    if (this.store instanceof MemoryStore) this.store.clear();
    this.local?.clear();
  }

  /** Heard changes older than the TTL can go: entries read before them are refused as too old anyway. */
  private forgetOldChanges(now: number): void {
    const horizon = now - this.ttlSeconds * 1000;
    for (const [tag, at] of this.heardAt) {
      if (at >= horizon) break;
      this.heardAt.delete(tag);
    }
    if (this.heardAt.size > MAX_HEARD_TAGS) {
      // Too many recent ones to keep: one moment for all of them.
      this.heardAllAt = now;
      this.heardAt.clear();
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

  /** Now on the clock entries are stamped with (the feed's: shared by every instance). */
  private now(): number {
    return this.feed ? this.feed.now() : Date.now();
  }

  /**
   * A token for a response about to be read from Postgres (pass it to save):
   * a response read while any instance invalidated something may predate
   * that write, so the store refuses it (it is still served to its request).
   * Undefined when the store cannot say: then nothing is stored. `readAt` and
   * `generation`: when the read began and the counter then, if the lookup
   * knew it already (null: the lookup found the store failing or unusable).
   */
  private async begin(readAt: number, generation: number | null | undefined): Promise<CacheToken | undefined> {
    if (!this.usable || generation === null) return undefined;
    if (generation !== undefined) return { generation, readAt };
    try {
      return { generation: await this.store.generation(), readAt };
    } catch (error) {
      this.failed('read', error);
      return undefined;
    }
  }

  /**
   * The cached response for `key` ('hit'), or one an identical request
   * running meanwhile produced ('shared': single flight, so concurrent misses
   * reach Postgres once), or the turn to produce it ('miss'): the caller
   * reads it from Postgres and passes it to `settle` (undefined when it is
   * not to be kept, a result with errors), which stores it and hands it to
   * the requests waiting for it. A request shares a running read only if the
   * store's counter, as its own lookup found it, is still the one from before
   * that read began (and the feed heard no change of what it shows since): a
   * write acknowledged before the request arrived, by any instance, moved the
   * counter, and a read begun before that write would show the old data.
   * Otherwise it reads for itself (and later identical requests wait for
   * it). Waiting stops after FOLLOW_TIMEOUT_MS: that request then produces
   * its own (its `settle` stores nothing). With
   * admission on the second miss, the first miss of a key in this process is
   * not stored either (`stores` false): only shared with identical requests
   * running meanwhile. With the doorkeeper, a `cheap` read's first sighting
   * is a miss at once: no lookup, no store, no single flight (nobody here is
   * producing a key never sighted), as with the cache off.
   */
  async obtain(key: string, cheap = false): Promise<Obtained> {
    let sightings: 0 | 1 | 2 | undefined;
    if (cheap && this.admission === 'doorkeeper') {
      sightings = this.seen!.sightings(key);
      if (sightings === 0) {
        this.stats.misses++;
        this.stats.firstSightings++;
        return FIRST_SIGHTING;
      }
    }
    const second = sightings === 1 ? this.secondSighting() : undefined;
    const found = second ?? await this.read(key);
    if (found.stored) {
      this.stats.hits++;
      return { outcome: 'hit', response: found.stored };
    }
    this.stats.misses++;
    const running = this.inFlight.get(key);
    // The counter as it is since this request arrived: its lookup's (a second
    // sighting's was heard before it arrived); a store without lookups' counter
    // (in-process) is asked.
    const counter = !running || second ? null : found.generation !== undefined ? found.generation : await this.store.generation().catch(() => null);
    const before = running && counter !== null ? await running.began : undefined;
    if (running && before !== undefined && before.generation === counter) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), FOLLOW_TIMEOUT_MS); });
      const shared = await Promise.race([running.response, timeout]);
      clearTimeout(timer);
      return shared && !this.predatesHeardChange(before.readAt, shared.tags) ? { outcome: 'shared', response: shared } : { outcome: 'miss', stores: false, settle: () => {} };
    }
    // Not stored (and so no token taken): a key this process has not missed before, under admission on the second miss.
    const stores = this.admission !== 'second-miss' || this.seen!.sighted(key);
    if (!stores) this.stats.unadmitted++;
    let release!: (response: CachedResponse | undefined) => void;
    const response = new Promise<CachedResponse | undefined>((resolve) => { release = resolve; });
    // Stamped now, before the read from Postgres begins (a change committed
    // earlier is in what it reads); the counter is the lookup's, read before
    // (an invalidation since refuses the store). A counter not started yet (0)
    // may be started by any instance meanwhile (a local tier's check does): it
    // is asked again then, and the read waits for the answer, since a counter
    // read after the read began could already count a write the read missed.
    // Taken whether or not it is stored: it also tells who may share the read.
    const began = this.begin(this.now(), found.generation === 0 ? undefined : found.generation);
    const flight: Flight = { response, began };
    this.inFlight.set(key, flight);
    // Never let a lost producer hold its key.
    const lost = setTimeout(() => { if (this.inFlight.get(key) === flight) this.inFlight.delete(key); }, FOLLOW_TIMEOUT_MS);
    lost.unref();
    const taken = await began;
    const token = stores ? taken : undefined;
    return {
      outcome: 'miss',
      stores,
      settle: (response) => {
        clearTimeout(lost);
        if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
        release(response);
        if (response && token) this.save(key, response, token);
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
   * store, as with the lookup's own (only more often, when the counter
   * heard is older). Undefined when no counter was heard in the last
   * KNOWN_GENERATION_MS: the lookup then asks, and hears it.
   */
  private secondSighting(): { stored?: undefined; generation: number } | undefined {
    const known = this.knownGeneration;
    if (known === undefined || performance.now() - known.at > KNOWN_GENERATION_MS || !this.usable) return undefined;
    this.stats.secondSightings++;
    return { generation: known.generation };
  }

  /** Stores a response read after the token was taken, unless a write was invalidated since. */
  private save(key: string, response: CachedResponse, token: CacheToken | undefined): void {
    if (token === undefined || !this.usable) return;
    // A change heard since the read began: the response may be old; nobody would serve it.
    if (this.predatesHeardChange(token.readAt, response.tags)) return;
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

  close(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.local?.clear();
    return this.store.close();
  }
}
