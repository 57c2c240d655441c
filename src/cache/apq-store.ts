// Automatic persisted queries: Apollo keeps query text by its sha256 hash, so
// clients (and CDNs, over GET) can send the hash alone. With Redis (REDIS_URL or
// REDIS_SENTINELS) the hashes live there, shared by every instance, under <prefix>apq:. A Redis
// failure is a miss: Apollo asks the client for the full query, which works.
import type { KeyValueCache, KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import type { Redis } from 'ioredis';

export class RedisKeyValueCache implements KeyValueCache<string> {
  private readonly client: Redis;
  private readonly prefix: string;
  private readonly defaultTtlSeconds: number;

  constructor(client: Redis, prefix: string, defaultTtlSeconds: number) {
    this.client = client;
    this.prefix = prefix;
    this.defaultTtlSeconds = defaultTtlSeconds;
  }

  async get(key: string): Promise<string | undefined> {
    if (this.client.status !== 'ready') return undefined;
    try {
      return (await this.client.get(this.prefix + key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    if (this.client.status !== 'ready') return;
    const ttl = options?.ttl ?? this.defaultTtlSeconds;
    try {
      if (ttl) await this.client.set(this.prefix + key, value, 'EX', Math.max(1, Math.round(ttl)));
      else await this.client.set(this.prefix + key, value);
    } catch {
      // A query not stored is asked for again; nothing breaks.
    }
  }

  async delete(key: string): Promise<void> {
    if (this.client.status !== 'ready') return;
    await this.client.del(this.prefix + key).catch(() => 0);
  }
}
