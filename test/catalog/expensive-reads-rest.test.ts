// EXPENSIVE_READS_BUSY_PERCENT: a slot rests after each statement, in
// proportion to how long it ran, before the next in line takes it, so a storm
// of expensive reads keeps Postgres busy at most that share of the time per
// slot (issue 45, item 4: the margin of a product page's p99 beside a storm).
// The limit alone, with work that takes a known time: no database.
import { describe, expect, it } from 'vitest';
import { ExpensiveReads } from '../../src/catalog/browse/expensive-reads.ts';

const BUSY_MS = 200;
const busy = () => new Promise((resolve) => setTimeout(resolve, BUSY_MS));

/** When (ms after the first started) the second of two reads in one slot started. */
async function secondStart(busyPercent: number, keyedReads?: () => number): Promise<number> {
  const reads = new ExpensiveReads({ concurrency: 1, queue: 4, maxWaitMs: 10_000, busyPercent }, keyedReads);
  const started = performance.now();
  const first = reads.run(busy);
  const second = reads.run(async () => performance.now() - started);
  await first;
  return second;
}

describe('EXPENSIVE_READS_BUSY_PERCENT', () => {
  it('at 50 the next read starts after a rest as long as the last one ran; at 100 at once', async () => {
    const [half, full] = await Promise.all([secondStart(50), secondStart(100)]);
    expect(half).toBeGreaterThanOrEqual(2 * BUSY_MS - 5);
    expect(full).toBeGreaterThanOrEqual(BUSY_MS - 5);
    expect(full).toBeLessThan(2 * BUSY_MS - 5);
  });

  it('rests only when keyed reads ran beside the statement: a storm alone keeps its throughput', async () => {
    let keyed = 0;
    const beside = setInterval(() => keyed++, 10);
    try {
      const [alone, contended] = await Promise.all([secondStart(50, () => 0), secondStart(50, () => keyed)]);
      expect(alone).toBeLessThan(2 * BUSY_MS - 5);
      expect(contended).toBeGreaterThanOrEqual(2 * BUSY_MS - 5);
    } finally {
      clearInterval(beside);
    }
  });

  it('a read waiting through the rest still runs out at EXPENSIVE_READS_MAX_WAIT_MS', async () => {
    const reads = new ExpensiveReads({ concurrency: 1, queue: 4, maxWaitMs: BUSY_MS + 50, busyPercent: 10 });
    const first = reads.run(busy);
    const second = reads.run(async () => 'ran');
    await first;
    await expect(second).rejects.toMatchObject({ statusCode: 429, reason: 'waited too long' });
  });
});
