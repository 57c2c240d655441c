// Turns a presented secret into the key it belongs to, remembering answers
// (found and not found) for a few seconds, so requests with a key do not reach
// Postgres each time. The price: a revoked key keeps working on an instance for
// up to `ttlSeconds` (API_KEY_CACHE_SECONDS). Concurrent lookups of one key
// share a single query.
import { type ActiveApiKey, hashApiKey } from './api-keys.ts';

interface Remembered {
  key: ActiveApiKey | undefined;
  expiresAt: number;
}

export class ApiKeyResolver {
  private readonly find: (hash: string) => Promise<ActiveApiKey | undefined>;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly remembered = new Map<string, Remembered>();
  private readonly inFlight = new Map<string, Promise<ActiveApiKey | undefined>>();

  constructor(find: (hash: string) => Promise<ActiveApiKey | undefined>, options: { ttlSeconds: number; maxEntries?: number }) {
    this.find = find;
    this.ttlMs = options.ttlSeconds * 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** The unrevoked key this secret belongs to; undefined for an unknown or revoked one. */
  async resolve(secret: string): Promise<ActiveApiKey | undefined> {
    const hash = hashApiKey(secret);
    const cached = this.remembered.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.key;
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
    if (this.ttlMs === 0) return;
    this.remembered.delete(hash);
    this.remembered.set(hash, { key, expiresAt: Date.now() + this.ttlMs });
    // Oldest first in a Map: random unknown keys cannot grow it without bound.
    while (this.remembered.size > this.maxEntries) this.remembered.delete(this.remembered.keys().next().value as string);
  }
}
