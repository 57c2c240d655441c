// The shared store: Redis, used by every instance. Redis is a cache, never a
// dependency: commands fail fast when it is down or slow (no offline queue, a
// short timeout), the caller treats a failure as a miss and answers from
// Postgres, and the client reconnects in the background, so caching resumes
// on its own when Redis is back.
import type { Redis } from 'ioredis';
import { connectRedis, type RedisClientOptions, whenReady } from './redis-client.ts';
import type { CacheStore } from './store.ts';

// Entries: <prefix>r:<key>. Tags: <prefix>t:<tag>, a set of entry keys.
// <prefix>generation counts invalidations. Storing and invalidating are
// scripts, so an entry and its tag memberships change together, and an entry
// read before an invalidation (by any instance) is never stored after it.
const SET_SCRIPT = `
if ARGV[3] ~= '' and tostring(redis.call('GET', KEYS[2]) or '0') ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
for i = 3, #KEYS do
  redis.call('SADD', KEYS[i], KEYS[1])
  local ttl = redis.call('TTL', KEYS[i])
  if ttl >= 0 and ttl < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[i], ARGV[2]) end
  if ttl == -1 then redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1`;

// The counter, started when absent (never set, flushed, evicted) at the
// server's clock in microseconds rather than at 0: a counter that was lost
// then never comes back to a value it had (a local tier trusts an entry while
// the counter still shows the value it was fetched at). INCR counts one an
// invalidation, far fewer than one a microsecond.
const START_COUNTER = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2])))
end`;

const INVALIDATE_SCRIPT = `${START_COUNTER}
redis.call('INCR', KEYS[1])
for i = 2, #KEYS do
  local members = redis.call('SMEMBERS', KEYS[i])
  for j = 1, #members, 500 do
    redis.call('DEL', unpack(members, j, math.min(j + 499, #members)))
  end
  redis.call('DEL', KEYS[i])
end
return 1`;

export interface RedisStoreOptions extends RedisClientOptions {
  prefix: string;
}

export class RedisStore implements CacheStore {
  readonly kind = 'redis';
  readonly client: Redis;
  private readonly prefix: string;

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix;
    // Concurrent requests' lookups go out in one write (one syscall, not one each).
    this.client = connectRedis({ ...options, autoPipelining: true });
    this.client.defineCommand('cacheSet', { lua: SET_SCRIPT });
    this.client.defineCommand('cacheInvalidate', { lua: INVALIDATE_SCRIPT });
    this.client.defineCommand('cacheCounter', { numberOfKeys: 1, lua: `${START_COUNTER}\nreturn redis.call('GET', KEYS[1])` });
  }

  private run<T>(command: () => Promise<T>): Promise<T> {
    return whenReady(this.client, command);
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run(() => this.client.get(`${this.prefix}r:${key}`))) ?? undefined;
  }

  async getWithGeneration(key: string): Promise<{ value: string | undefined; generation: number }> {
    // MGET: one command, so no invalidation falls between the two reads.
    const [value, generation] = await this.run(() => this.client.mget(`${this.prefix}r:${key}`, `${this.prefix}generation`));
    return { value: value ?? undefined, generation: Number(generation ?? 0) };
  }

  async checkGeneration(): Promise<number> {
    const key = `${this.prefix}generation`;
    // A plain GET (cheaper for Redis than a script) unless the counter is absent.
    const value = await this.run(() => this.client.get(key));
    if (value !== null) return Number(value);
    const client = this.client as Redis & { cacheCounter(key: string): Promise<string> };
    return Number(await this.run(() => client.cacheCounter(key)));
  }

  async counter(name: string): Promise<number> {
    return Number((await this.run(() => this.client.get(`${this.prefix}c:${name}`))) ?? 0);
  }

  async bump(name: string): Promise<void> {
    await this.run(() => this.client.incr(`${this.prefix}c:${name}`));
  }

  async generation(): Promise<number> {
    return Number((await this.run(() => this.client.get(`${this.prefix}generation`))) ?? 0);
  }

  async set(key: string, value: string, tags: readonly string[], ttlSeconds: number, ifGeneration?: number): Promise<void> {
    const keys = [`${this.prefix}r:${key}`, `${this.prefix}generation`, ...tags.map((tag) => `${this.prefix}t:${tag}`)];
    const client = this.client as Redis & { cacheSet(n: number, ...args: (string | number)[]): Promise<unknown> };
    await this.run(() => client.cacheSet(keys.length, ...keys, value, Math.max(1, Math.round(ttlSeconds)), ifGeneration === undefined ? '' : String(ifGeneration)));
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    if (tags.length === 0) return;
    const keys = [`${this.prefix}generation`, ...tags.map((tag) => `${this.prefix}t:${tag}`)];
    const client = this.client as Redis & { cacheInvalidate(n: number, ...args: string[]): Promise<unknown> };
    await this.run(() => client.cacheInvalidate(keys.length, ...keys));
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
