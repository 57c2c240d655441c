// The response cache's spans, when traces are on: each lookup (cache.lookup:
// hit, shared or miss, whichever API asked: the fast path, Apollo's plugin,
// a REST read) and each store (cache.store, the write to the store behind
// it). Wrapped here, where the cache is assembled, so the cache's own logic
// is the same code with traces on or off; never a key in an attribute.
import { inSpan } from '../tracing/spans.ts';
import type { ResponseCache } from './response-cache.ts';
import type { CacheStore } from './store.ts';

/** `store`, whose writes of entries are cache.store spans. */
export function tracedStore<S extends CacheStore>(store: S, kind: string): S {
  const set = store.set.bind(store);
  store.set = (key, value, tags, ttlSeconds, ifGeneration) => inSpan('cache.store', { 'catalogue.cache.store': kind, 'catalogue.cache.bytes': value.length, 'catalogue.cache.tags': tags.length }, () =>
    set(key, value, tags, ttlSeconds, ifGeneration));
  return store;
}

/** `cache`, whose lookups are cache.lookup spans with their outcome. */
export function tracedLookups(cache: ResponseCache): ResponseCache {
  const obtain = cache.obtain.bind(cache);
  cache.obtain = (key, cheap) => inSpan('cache.lookup', { 'catalogue.cache.store': cache.kind }, async (span) => {
    const obtained = await obtain(key, cheap);
    span?.setAttribute('catalogue.cache.outcome', obtained.outcome);
    return obtained;
  });
  return cache;
}
