// The bench's cache hit ratio with WORKERS=2: each cluster worker counts its
// own cache lookups at /healthz (tagged with its pid), and the bench adds up
// every worker's counters, so no request goes uncounted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hitRatio, readCacheCounters } from '../../bench/lib/cache-counters.ts';
import { freshGet } from '../../bench/lib/fresh-get.ts';
import { type ServerProcess, startApi } from '../../bench/lib/server-process.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';

describe('cache counters of every worker', () => {
  const catalogue = useTestCatalogue();
  let api: ServerProcess;

  beforeAll(async () => {
    // In-process (memory) caches: one per worker, each with its own counters.
    api = await startApi({ databaseUrl: catalogue.db.url, workers: 2, cache: 'memory' });
  }, 90_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('adds up hits and misses over both workers', async () => {
    const before = await readCacheCounters(api.url, 2);
    expect(before.byPid.size).toBe(2);
    const requests = 20;
    // New connections: the cluster hands each to the next worker.
    for (let i = 0; i < requests; i++) expect((await freshGet(`${api.url}/products/7/styles`)).status).toBe(200);
    const after = await readCacheCounters(api.url, 2);
    let lookups = 0;
    let workersThatMissed = 0;
    for (const [pid, counts] of after.byPid) {
      const then = before.byPid.get(pid)!;
      lookups += counts.hits + counts.misses - then.hits - then.misses;
      if (counts.misses > then.misses) workersThatMissed++;
    }
    expect(lookups).toBe(requests);
    // Both workers served some; each missed once (its own cache), then hit.
    expect(workersThatMissed).toBe(2);
    expect(hitRatio(before, after)).toBe((requests - 2) / requests);
  });

  it('has no ratio when nothing was looked up', async () => {
    const counters = await readCacheCounters(api.url, 2);
    expect(hitRatio(counters, counters)).toBeNull();
  });
});
