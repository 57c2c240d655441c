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
    /** Asks Postgres (sharing a lookup of the same key in flight) and remembers the answer. */
    lookup(): Promise<ActiveApiKey | undefined>;
  };

export interface ApiKeyResolverOptions {
  /** How long a valid key is used without asking again; 0: every request asks. */
  ttlSeconds: number;
  /** Valid keys remembered (default 10,000). */
  maxEntries?: number;
  /** How long an unknown or revoked key is remembered (default: ttlSeconds); 0: not at all. */
  negativeTtlSeconds?: number;
  /** Unknown or revoked keys remembered (default: maxEntries). */
  maxNegativeEntries?: number;
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

  constructor(find: (hash: string) => Promise<ActiveApiKey | undefined>, options: ApiKeyResolverOptions) {
    this.find = find;
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
    return { cached: false, knownValid: valid !== undefined, lookup: () => this.lookup(hash) };
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
