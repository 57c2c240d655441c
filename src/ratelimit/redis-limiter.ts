// Token buckets in Redis, shared by every instance: one script takes from a
// bucket atomically (one round trip per request) using Redis's clock, so
// instances with skewed clocks still agree. Each bucket is a hash
// <prefix>ratelimit:<bucket> {tokens, at}, expiring once it would be full
// again (a full bucket and a missing one are the same).
import type { Redis } from 'ioredis';
import { connectRedis, type RedisClientOptions, whenReady } from '../cache/redis-client.ts';
import { decision, type RateLimitDecision, type RateLimiter, WINDOW_MS } from './limiter.ts';

// The arithmetic of memory-limiter.ts, in Lua. ARGV: limit, cost, window (ms).
// Returns {allowed (0/1), whole tokens left, ms until full, ms until `cost` is there}.
const TAKE_SCRIPT = `
local limit = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local perMs = limit / tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = limit
if state[1] then
  tokens = math.min(limit, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * perMs)
end
local allowed = 0
if cost <= tokens then
  tokens = tokens - cost
  allowed = 1
end
local untilFull = math.ceil((limit - tokens) / perMs)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], untilFull + 1000)
return {allowed, math.floor(tokens), untilFull, math.ceil((cost - tokens) / perMs)}`;

type ScriptClient = Redis & { rateLimitTake(keys: 1, key: string, limit: number, cost: number, windowMs: number): Promise<[number, number, number, number]> };

export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly client: ScriptClient;
  private readonly prefix: string;

  constructor(options: RedisClientOptions & { prefix: string }) {
    this.prefix = options.prefix;
    // Every API request sends one script call: under load, batch them.
    this.client = connectRedis({ ...options, autoPipelining: true }) as ScriptClient;
    this.client.defineCommand('rateLimitTake', { lua: TAKE_SCRIPT });
  }

  async take(bucket: string, cost: number, limit: number): Promise<RateLimitDecision> {
    const [allowed, tokens, untilFull, untilCost] = await whenReady(this.client, () =>
      this.client.rateLimitTake(1, `${this.prefix}ratelimit:${bucket}`, limit, cost, WINDOW_MS));
    return decision(limit, allowed === 1, tokens, untilFull, untilCost);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
