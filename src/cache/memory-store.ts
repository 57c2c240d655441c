// The in-process store: the default without REDIS_URL, for a single instance.
// A bounded LRU (Map insertion order), with expiry and a tag index.
import type { CacheStore } from './store.ts';

interface Entry { value: string; tags: readonly string[]; expiresAt: number }

export class MemoryStore implements CacheStore {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  private readonly maxEntries: number;
  private invalidations = 0;

  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  private readonly counters = new Map<string, number>();

  async counter(name: string): Promise<number> {
    return this.counters.get(name) ?? 0;
  }

  async bump(name: string): Promise<void> {
    this.counters.set(name, (this.counters.get(name) ?? 0) + 1);
  }

  async generation(): Promise<number> {
    return this.invalidations;
  }

  async set(key: string, value: string, tags: readonly string[], ttlSeconds: number, ifGeneration?: number): Promise<void> {
    if (ifGeneration !== undefined && ifGeneration !== this.invalidations) return;
    this.delete(key);
    this.entries.set(key, { value, tags, expiresAt: Date.now() + ttlSeconds * 1000 });
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.maxEntries) this.delete(this.entries.keys().next().value as string);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    this.invalidations++;
    for (const tag of tags) {
      for (const key of this.byTag.get(tag) ?? []) this.delete(key);
      this.byTag.delete(tag);
    }
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }

  /** Drops every entry (anything may have changed); a read in flight is not stored after it. */
  clear(): void {
    this.invalidations++;
    this.entries.clear();
    this.byTag.clear();
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.byTag.clear();
  }
}
