// Sidecar-mode tests: a legacy simulator, a fresh database, and the API in
// sidecar mode on top (LEGACY_SOURCE_URL), with a small overhead and a
// generous budget so that a sync of a few dozen products takes seconds.
import { expect } from 'vitest';
import { startLegacySimulator, type LegacySimulator, type LegacySimulatorOptions } from '../../src/legacy-sim/server.ts';
import { createTestClient, type TestClient } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

export const SIDECAR_RPS = 40;
/**
 * Requests reach the simulator a little after the sidecar starts them, by
 * delays that vary (an event loop busy for a moment, on either side); the
 * budget absorbs 50 ms of that (SLACK_MS). Windows this much shorter than 1 s
 * are what the tests count at the simulator, for a loaded machine.
 */
export const ARRIVAL_JITTER_MS = 50;

export interface SidecarSetup {
  sim: LegacySimulator;
  database: TestDatabase;
  client: TestClient;
  close(): Promise<void>;
}

export function sidecarEnv(sim: LegacySimulator, env: Record<string, string> = {}): Record<string, string> {
  return {
    LEGACY_SOURCE_URL: sim.url,
    LEGACY_MAX_RPS: String(SIDECAR_RPS),
    LEGACY_MAX_CONCURRENCY: '1',
    LEGACY_TIMEOUT_MS: '2000',
    LEGACY_SYNC_INTERVAL_SECONDS: '1',
    LEGACY_MAX_ATTEMPTS: '2',
    LEGACY_BACKOFF_BASE_MS: '20',
    LEGACY_BACKOFF_MAX_MS: '100',
    LEGACY_RETRY_AFTER_MAX_WAIT_MS: '0',
    LEGACY_BREAKER_FAILURES: '3',
    LEGACY_BREAKER_COOLDOWN_MS: '300',
    LEGACY_BREAKER_MAX_COOLDOWN_MS: '1000',
    ...env,
  };
}

export async function startSidecarSetup(options: { sim?: LegacySimulatorOptions; env?: Record<string, string>; database?: TestDatabase } = {}): Promise<SidecarSetup> {
  const sim = await startLegacySimulator({ products: 30, overheadMs: 20, ...options.sim });
  const database = options.database ?? await createTestDatabase();
  const client = await createTestClient(database.url, { env: sidecarEnv(sim, options.env) });
  return {
    sim, database, client,
    async close() {
      await client.close();
      await sim.close();
      if (!options.database) await database.drop();
    },
  };
}

/** Waits until `check` passes (it throws or returns false until then). */
export async function eventually<T>(check: () => Promise<T | false> | T | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const result = await check();
      if (result !== false) return result as T;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The bytes the simulator and the sidecar answer for `path` (both 200 and equal, or the assertion fails). */
export async function expectSameBytes(setup: SidecarSetup, path: string): Promise<void> {
  const legacy = await fetch(`${setup.sim.url}${path}`);
  const local = await setup.client.app.inject({ method: 'GET', url: path });
  expect({ path, status: local.statusCode, body: local.body }).toEqual({ path, status: legacy.status, body: await legacy.text() });
}

/** Waits until the sync has seen every simulator product and has nothing left incomplete. */
export async function synced(setup: SidecarSetup, timeoutMs = 30_000): Promise<void> {
  const sidecar = setup.client.server.sidecar!;
  await eventually(() => {
    const progress = sidecar.worker.progress();
    const last = setup.sim.catalogue.page(1, 100_000).at(-1)?.id ?? 0;
    return progress.highestId >= last && progress.queue.incomplete === 0 && progress.rounds > 0;
  }, timeoutMs, 'the sync to catch up');
}
