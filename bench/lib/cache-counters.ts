// The response cache's hit ratio over one measured run, from the counters
// each API process reports at /healthz. With WORKERS=N every worker counts on
// its own, so the ratio adds up all of theirs.
import { healthOfWorkers } from './worker-health.ts';

export interface CacheCounters {
  /** hits and misses per worker process id. */
  byPid: Map<number, { hits: number; misses: number }>;
}

/** Every worker's counters (as many as `workers` processes answer within a bounded number of tries). */
export async function readCacheCounters(url: string, workers: number): Promise<CacheCounters> {
  const byPid = new Map<number, { hits: number; misses: number }>();
  for (const [pid, health] of await healthOfWorkers(url, workers)) byPid.set(pid, { hits: health.cache?.hits ?? 0, misses: health.cache?.misses ?? 0 });
  return { byPid };
}

/**
 * Hits over lookups between two readings, over every worker seen in the
 * second (a worker restarted in between counts from zero); null when nothing
 * was looked up (the cache is off).
 */
export function hitRatio(before: CacheCounters, after: CacheCounters): number | null {
  let hits = 0;
  let lookups = 0;
  for (const [pid, now] of after.byPid) {
    const then = before.byPid.get(pid) ?? { hits: 0, misses: 0 };
    hits += now.hits - then.hits;
    lookups += now.hits - then.hits + now.misses - then.misses;
  }
  return lookups > 0 ? hits / lookups : null;
}
