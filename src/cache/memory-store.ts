// The in-process store: the default without REDIS_URL, for a single instance.
// A bounded LRU with a tag index (./tagged-lru.ts), and expiry.
import { TaggedLru } from './tagged-lru.ts';
import type { CacheStore } from './store.ts';

interface Entry { value: string; expiresAt: number }

export class MemoryStore implements CacheStore {
  readonly kind = 'memory';
  private readonly entries: TaggedLru<Entry>;
  private readonly counters = new Map<string, number>();

  constructor(maxEntries = 10_000) {
    this.entries = new TaggedLru(maxEntries);
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async counter(name: string): Promise<number> {
    return this.counters.get(name) ?? 0;
  }

  async bump(name: string): Promise<void> {
    this.counters.set(name, (this.counters.get(name) ?? 0) + 1);
  }

  async generation(): Promise<number> {
    return this.entries.generation;
  }

  async set(key: string, value: string, tags: readonly string[], ttlSeconds: number, ifGeneration?: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 }, tags, ifGeneration);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    this.entries.invalidate(tags);
  }

  /** Drops every entry (anything may have changed); a read in flight is not stored after it. */
  clear(): void {
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
