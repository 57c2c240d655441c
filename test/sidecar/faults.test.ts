// The sync on a misbehaving legacy service (random 5xx, 429s with
// Retry-After): it still converges, and never exceeds the budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameBytes, SIDECAR_RPS, type SidecarSetup, startSidecarSetup, synced } from './support.ts';

describe('sidecar sync on a flaky legacy service', () => {
  let setup: SidecarSetup;

  beforeAll(async () => {
    setup = await startSidecarSetup({
      sim: { products: 15, errorRate: 0.1, throttleRate: 0.05, retryAfterSeconds: 1 },
      env: { LEGACY_MAX_ATTEMPTS: '4', LEGACY_RETRY_AFTER_MAX_WAIT_MS: '2000', LEGACY_BREAKER_FAILURES: '10' },
    });
    await synced(setup, 45_000);
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('converges to the legacy bytes', async () => {
    setup.sim.setFaults({ errorRate: 0, throttleRate: 0 });
    for (const id of [1, 8, 15]) {
      await expectSameBytes(setup, `/products/${id}`);
      await expectSameBytes(setup, `/products/${id}/styles`);
      await expectSameBytes(setup, `/products/${id}/related`);
    }
  });

  it('stayed within the budget (retries included)', () => {
    const stats = setup.sim.stats();
    expect(stats.faults.error + stats.faults.throttle).toBeGreaterThan(0);
    const times = setup.sim.requests().map((entry) => Date.parse(entry.receivedAt)).sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    // The test's own reads above add up to 9 requests.
    expect(most).toBeLessThanOrEqual(SIDECAR_RPS + 9);
    expect(stats.maxInFlight).toBeLessThanOrEqual(2);
  });
});
