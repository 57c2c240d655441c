// The response cache the configuration asks for: Redis shared by every
// instance with REDIS_URL or REDIS_SENTINELS (with a local tier in front of it,
// CACHE_LOCAL_MB, when the change feed is on), else in-process; none with CACHE=off.
// With the change feed (CHANGE_FEED), it also follows every instance's
// committed writes heard through Postgres.
import type { Config } from '../config.ts';
import { MemoryStore } from './memory-store.ts';
import { RedisStore } from './redis-store.ts';
import { type ChangeListening, ResponseCache } from './response-cache.ts';
import { throttled } from '../util/throttled.ts';
import { traces } from '../tracing/spans.ts';
import { tracedLookups, tracedStore } from './traced-cache.ts';

/** With `feed`, writes heard through it are never served stale, and nothing is served while it is not listening. */
export function createResponseCache(config: Config, warn: (message: string, error: unknown) => void, feed?: ChangeListening): ResponseCache | undefined {
  if (!config.cache) return undefined;
  const log = throttled(warn);
  const store = config.redis
    ? new RedisStore({ target: config.redis, prefix: config.cachePrefix, timeoutMs: config.redisTimeoutMs, onError: (error) => log('Redis connection problem', error) })
    : new MemoryStore();
  // With traces on, lookups and stores are spans (traced-cache.ts); off, the cache is made as it always was.
  const traced = traces.tracer !== undefined;
  const cache = new ResponseCache(traced ? tracedStore(store, config.redis ? 'redis' : 'memory') : store,
    { ttlSeconds: config.cacheTtlSeconds, warn: log, feed, localBytes: config.cacheLocalBytes, soleWriter: config.soleWriter, admission: config.cacheAdmission });
  return traced ? tracedLookups(cache) : cache;
}
