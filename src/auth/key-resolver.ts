// Turns a presented secret into the key it belongs to, remembering answers so
// requests with a key do not reach Postgres each time:
// - a valid key for `ttlSeconds` (API_KEY_CACHE_SECONDS); the price: a revoked
//   key keeps working on an instance for up to that long. Past that it is
//   looked up again, and until then it stays recognised as a key that was
//   valid (access.ts does not charge such a lookup to the client's address);
// - an unknown or revoked key for `negativeTtlSeconds`
//   (API_KEY_NEGATIVE_CACHE_SECONDS), in a map of its own, so a flood of
//   random keys pushes out only other unknown keys, never valid ones.
// Both maps are bounded, oldest first. Concurrent lookups of one key share a
// single query.
//
// A key this instance has never seen (a new key, or any key after a restart)
// is not looked up on its own: the request waits for a scan of every active
// key (`list`) that starts after it arrived, at most one every SCAN_INTERVAL_MS
// whatever the number of keys presented, and is then decided. A valid key is
// so never refused because other keys presented from its address were wrong
// (a fresh key would otherwise share the storm's key-check budget and get
// 429s), and a storm costs Postgres at most a few scans a second. With more
// active keys than the cache holds (maxEntries), a scan cannot decide:
// unknown keys are then looked up one by one, within the address's
// key-check budget (access.ts), and the table is scanned again a minute later.
import { type ActiveApiKey, hashApiKey } from './api-keys.ts';

interface Valid {
  key: ActiveApiKey;
  /** Until when the answer is used without asking Postgres again. */
  freshUntil: number;
}

/** What the caches know about a secret. */
export type KeyCheck =
  | { cached: true; key: ActiveApiKey | undefined }
  | {
    cached: false;
    /** The key was valid when it was last looked up (only its freshness ran out). */
    knownValid: boolean;
    /**
     * Asks Postgres (a scan of every active key, or a lookup of this one,
     * shared with others in flight) and remembers the answer. `charge` runs
     * before a lookup of a key that is not known as valid, which only a
     * scan that cannot decide leads to (it may throw: nothing is asked then).
     */
    lookup(charge?: () => Promise<void>): Promise<ActiveApiKey | undefined>;
  };

/** An active key as a scan lists it, with the hash of its secret. */
export interface ListedKey {
  hash: string;
  key: ActiveApiKey;
}

/** Scans of every active key start at most this often (a storm of unknown keys waits for the next one). */
export const SCAN_INTERVAL_MS = 100;
/** After a scan found more active keys than the cache holds, how long unknown keys are looked up one by one. */
const TOO_MANY_KEYS_MS = 60_000;

export interface ApiKeyResolverOptions {
  /** How long a valid key is used without asking again; 0: every request asks. */
  ttlSeconds: number;
  /** Valid keys remembered (default 10,000). */
  maxEntries?: number;
  /** How long an unknown or revoked key is remembered (default: ttlSeconds); 0: not at all. */
  negativeTtlSeconds?: number;
  /** Unknown or revoked keys remembered (default: maxEntries). */
  maxNegativeEntries?: number;
  /**
   * Every active key, at most `limit` of them (in any order): what a key this
   * instance has never seen is checked against. Without it, such keys are
   * looked up one by one.
   */
  list?: (limit: number) => Promise<ListedKey[]>;
}

export class ApiKeyResolver {
  private readonly find: (hash: string) => Promise<ActiveApiKey | undefined>;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly negativeTtlMs: number;
  private readonly maxNegativeEntries: number;
  private readonly valid = new Map<string, Valid>();
  /** Unknown or revoked keys' hashes, with when they are forgotten. */
  private readonly invalid = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<ActiveApiKey | undefined>>();
  private readonly list: ((limit: number) => Promise<ListedKey[]>) | undefined;
  /** The scan that starts next (every request waiting for one that starts after it arrived awaits it): whether it decided. */
  private nextScan: Promise<boolean> | undefined;
  private lastScanStartedAt = Number.NEGATIVE_INFINITY;
  /** The start of the newest scan whose answer is applied (an older one finishing later is not). */
  private appliedScanStartedAt = Number.NEGATIVE_INFINITY;
  /** Until when scans are skipped: the last one listed more keys than the cache holds. */
  private tooManyKeysUntil = Number.NEGATIVE_INFINITY;

  constructor(find: (hash: string) => Promise<ActiveApiKey | undefined>, options: ApiKeyResolverOptions) {
    this.find = find;
    this.list = options.list;
    this.ttlMs = options.ttlSeconds * 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.negativeTtlMs = (options.negativeTtlSeconds ?? options.ttlSeconds) * 1000;
    this.maxNegativeEntries = options.maxNegativeEntries ?? this.maxEntries;
  }

  /** Unknown or revoked keys currently remembered. */
  get negativeEntries(): number {
    return this.invalid.size;
  }

  /** What the caches say about this secret, without asking Postgres. */
  check(secret: string): KeyCheck {
    const hash = hashApiKey(secret);
    const now = Date.now();
    const valid = this.valid.get(hash);
    if (valid && valid.freshUntil > now) return { cached: true, key: valid.key };
    const invalidUntil = this.invalid.get(hash);
    if (invalidUntil !== undefined) {
      if (invalidUntil > now) return { cached: true, key: undefined };
      this.invalid.delete(hash);
    }
    if (valid !== undefined) return { cached: false, knownValid: true, lookup: () => this.lookup(hash) };
    return { cached: false, knownValid: false, lookup: (charge) => this.lookupUnknown(hash, charge) };
  }

  /** A key not known as valid: decided by a scan that starts after now, else looked up (charged) on its own. */
  private async lookupUnknown(hash: string, charge: (() => Promise<void>) | undefined): Promise<ActiveApiKey | undefined> {
    if (this.list && performance.now() >= this.tooManyKeysUntil && await this.scanFromNow()) {
      const key = this.valid.get(hash)?.key;
      if (key === undefined) this.remember(hash, undefined);
      return key;
    }
    await charge?.();
    return this.lookup(hash);
  }

  /** Waits for a scan that starts from now on (at most one every SCAN_INTERVAL_MS); whether it decided (all active keys listed). */
  private scanFromNow(): Promise<boolean> {
    this.nextScan ??= new Promise<boolean>((resolve, reject) => {
      const wait = Math.max(0, this.lastScanStartedAt + SCAN_INTERVAL_MS - performance.now());
      setTimeout(() => {
        this.nextScan = undefined;
        const startedAt = performance.now();
        this.lastScanStartedAt = startedAt;
        this.scan(startedAt).then(resolve, reject);
      }, wait);
    });
    return this.nextScan;
  }

  private async scan(startedAt: number): Promise<boolean> {
    const listed = await this.list!(this.maxEntries + 1);
    if (listed.length > this.maxEntries) {
      this.tooManyKeysUntil = performance.now() + TOO_MANY_KEYS_MS;
      return false;
    }
    if (startedAt < this.appliedScanStartedAt) return true; // a newer scan's answer is already in
    this.appliedScanStartedAt = startedAt;
    // Every active key, fresh; any other valid entry has been revoked since.
    const active = new Set<string>();
    for (const { hash, key } of listed) {
      active.add(hash);
      this.remember(hash, key);
    }
    for (const hash of [...this.valid.keys()]) if (!active.has(hash)) this.valid.delete(hash);
    return true;
  }

  /** The unrevoked key this secret belongs to; undefined for an unknown or revoked one. */
  async resolve(secret: string): Promise<ActiveApiKey | undefined> {
    const check = this.check(secret);
    return check.cached ? check.key : check.lookup();
  }

  private async lookup(hash: string): Promise<ActiveApiKey | undefined> {
    let lookup = this.inFlight.get(hash);
    if (!lookup) {
      lookup = this.find(hash).finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, lookup);
    }
    const key = await lookup;
    this.remember(hash, key);
    return key;
  }

  private remember(hash: string, key: ActiveApiKey | undefined): void {
    const now = Date.now();
    if (key) {
      this.invalid.delete(hash);
      this.valid.delete(hash);
      this.valid.set(hash, { key, freshUntil: now + this.ttlMs });
      while (this.valid.size > this.maxEntries) this.valid.delete(this.valid.keys().next().value as string);
      return;
    }
    this.valid.delete(hash);
    if (this.negativeTtlMs === 0) return;
    this.invalid.delete(hash);
    this.invalid.set(hash, now + this.negativeTtlMs);
    // Oldest first in a Map: random unknown keys cannot grow it without bound.
    while (this.invalid.size > this.maxNegativeEntries) this.invalid.delete(this.invalid.keys().next().value as string);
  }
}
