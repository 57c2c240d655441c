// The rate limiter the configuration asks for: in Redis (shared by every
// instance) with REDIS_URL or REDIS_SENTINELS, else in process; none with RATE_LIMIT=off.
import type { Config } from '../config.ts';
import { MemoryRateLimiter } from './memory-limiter.ts';
import type { RateLimiter } from './limiter.ts';
import { RedisRateLimiter } from './redis-limiter.ts';

export function createRateLimiter(config: Config, onRedisError: (error: Error) => void): RateLimiter | undefined {
  if (!config.rateLimit) return undefined;
  if (!config.redis) return new MemoryRateLimiter();
  return new RedisRateLimiter({ target: config.redis, prefix: config.cachePrefix, timeoutMs: config.redisTimeoutMs, onError: onRedisError });
}
