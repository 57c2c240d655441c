// The response cache the configuration asks for: Redis shared by every
// instance when REDIS_URL is set, else in-process; none with CACHE=off.
import type { Config } from '../config.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import { ResponseCache } from './response-cache.ts';

/** At most one warning per interval: a Redis outage must not flood the logs. */
function throttled(log: (message: string, error: unknown) => void, intervalMs = 10_000) {
  let last = 0;
  let suppressed = 0;
  return (message: string, error: unknown) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    log(suppressed > 0 ? `${message} (and ${suppressed} more since the last warning)` : message, error);
    last = now;
    suppressed = 0;
  };
}

export function createResponseCache(config: Config, warn: (message: string, error: unknown) => void): ResponseCache | undefined {
  if (!config.cache) return undefined;
  const log = throttled(warn);
  const store = config.redisUrl
    ? new RedisStore({ url: config.redisUrl, prefix: config.cachePrefix, timeoutMs: config.redisTimeoutMs, onError: (error) => log('Redis connection problem', error) })
    : new MemoryStore();
  return new ResponseCache(store, { ttlSeconds: config.cacheTtlSeconds, warn: log });
}
