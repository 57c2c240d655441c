// The capacity model of npm run bench:capacity (docs/capacity.md): the
// measured medians per route and cache state, and what a deployment needs
// for each target rate at each hit ratio.

/** Deployment rates the model sizes for. */
export const TARGET_RATES = [10_000, 50_000, 100_000];
/** Busy share of a core a sizing plans for (headroom for bursts and a lost pod). */
export const UTILISATION = 0.6;

/** One measured run (or the median of several) of a route: per request. */
export interface Sample { rps: number; p99: number; apiMs: number; pgMs: number; redisOps: number; redisUs: number; hitRatio: number | null }

/** A route's medians in a cache state (uncached: CACHE=off; misses: the default set-up over the whole catalogue; cached: a hot set), of this checkout or another (`api`). */
export type Result = { route: string; cache: 'uncached' | 'misses' | 'cached'; api?: string; median: Sample };

function markdown(header: string[], rows: string[][]): string {
  return [header, header.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

/** Per route and cache state: the measured medians. */
export function capacityTable(results: readonly Result[]): string {
  const apis = results.some((r) => r.api !== undefined);
  return markdown([...(apis ? ['API'] : []), 'route', 'cache', 'req/s (1 API process)', 'API CPU ms/req', 'req/s per API core', 'Postgres CPU ms/req', 'Redis cmds/req', 'Redis CPU µs/req', 'hit ratio', 'p99 ms'],
    results.map(({ route, cache, api, median: m }) => [...(apis ? [api ?? 'this'] : []), route, cache, m.rps.toFixed(0), m.apiMs.toFixed(3), (1000 / m.apiMs).toFixed(0), m.pgMs.toFixed(3), m.redisOps.toFixed(2), m.redisUs.toFixed(1),
      m.hitRatio === null ? '-' : `${(m.hitRatio * 100).toFixed(1)}%`, m.p99.toFixed(2)]));
}

/**
 * For each route and hit ratio, per target rate: API pods (one core each),
 * Postgres cores for the reads (what the replicas together need), Redis
 * commands/s and Redis cores, each core UTILISATION busy. A hit costs the
 * cached figures, a miss the measured misses' (the default set-up over the
 * whole catalogue), or without them the uncached ones plus the cache's
 * lookup and store. This checkout's results only (not --api-root's).
 */
export function capacityModel(results: readonly Result[], hitRatios: readonly number[]): string {
  const rows: string[][] = [];
  const own = results.filter((r) => r.api === undefined);
  for (const route of new Set(own.map((r) => r.route))) {
    const uncached = own.find((r) => r.route === route && r.cache === 'uncached')?.median;
    const misses = own.find((r) => r.route === route && r.cache === 'misses')?.median;
    const cached = own.find((r) => r.route === route && r.cache === 'cached')?.median;
    const miss = misses ?? uncached;
    if (!miss || !cached) continue;
    for (const h of hitRatios) {
      const apiMs = h * cached.apiMs + (1 - h) * miss.apiMs;
      const pgMs = h * cached.pgMs + (1 - h) * miss.pgMs;
      // Unmeasured, a miss looks up and stores: twice a hit's commands (an upper bound; the store is skipped after a concurrent write).
      const redisOps = h * cached.redisOps + (1 - h) * (misses ? misses.redisOps : 2 * cached.redisOps);
      const redisUs = h * cached.redisUs + (1 - h) * (misses ? misses.redisUs : 2 * cached.redisUs);
      rows.push([route, `${(h * 100).toFixed(0)}%`, ...TARGET_RATES.map((rate) => {
        const pods = Math.ceil((rate * apiMs) / 1000 / UTILISATION);
        const pgCores = (rate * pgMs) / 1000 / UTILISATION;
        const redisCores = (rate * redisUs) / 1e6 / UTILISATION;
        return `${pods} pods, ${pgCores.toFixed(1)} PG cores, ${Math.round((rate * redisOps) / 1000)}k Redis cmds/s (${redisCores.toFixed(1)} cores)`;
      })]);
    }
  }
  return markdown(['route', 'hit ratio', ...TARGET_RATES.map((rate) => `${rate.toLocaleString('en-US')} req/s`)], rows);
}
