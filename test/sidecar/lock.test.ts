// One sync per deployment: of two instances on one database, one holds the
// advisory lock and syncs; the other serves, passes writes through, and
// takes over when the first one stops, resuming from the stored cursor.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, type TestClient } from '../support/catalogue-app.ts';
import { eventually, sidecarEnv, type SidecarSetup, startSidecarSetup, synced } from './support.ts';

describe('sidecar sync lock', () => {
  let setup: SidecarSetup;
  let second: TestClient;

  beforeAll(async () => {
    setup = await startSidecarSetup({ sim: { products: 15 } });
    await synced(setup);
    second = await createTestClient(setup.database.url, { env: sidecarEnv(setup.sim) });
  });

  afterAll(async () => {
    await second?.close();
    await setup?.close();
  });

  it('only one of two instances syncs', async () => {
    await eventually(() => second.server.sidecar!.worker.state === 'standby', 5_000, 'the second instance to stand by');
    expect(setup.client.server.sidecar!.worker.state).toBe('syncing');
    const verified = second.server.sidecar!.worker.progress().verified;
    // While the syncing instance verifies more products, the standby verifies none.
    const first = setup.client.server.sidecar!.worker;
    const firstVerified = first.progress().verified;
    await eventually(() => first.progress().verified >= firstVerified + 5, 30_000, 'the syncing instance to verify more products');
    expect(second.server.sidecar!.worker.progress().verified).toBe(verified);
    expect(second.server.sidecar!.worker.progress().verified).toBe(0);
    // It still serves the copy, with its age (the syncing instance's successes, from the stored state).
    const response = await second.app.inject({ method: 'GET', url: '/products/3' });
    expect(response.statusCode).toBe(200);
    expect(Number(response.headers['x-source-age'])).toBeLessThanOrEqual(3);
  });

  it('the sync state is in Postgres', async () => {
    const client = new pg.Client({ connectionString: setup.database.url });
    await client.connect();
    try {
      // The worker stores its state at most once a second, so the row can trail its progress briefly.
      const state = await eventually(async () => {
        const { rows: [row] } = await client.query('SELECT cursor, highest_id, last_success_at FROM legacy_sync_state WHERE id = 1');
        return row.highest_id === 15 && row;
      }, 5_000, 'the stored state to reach product 15');
      expect(state.last_success_at).toBeInstanceOf(Date);
      const { rows: [hashes] } = await client.query('SELECT count(*)::int AS n FROM legacy_sync_products');
      expect(hashes.n).toBe(15);
    } finally {
      await client.end();
    }
  });

  it('a product read on the standby instance is verified first by the syncing one', async () => {
    setup.sim.catalogue.update(12, { name: 'Read on the other instance' }, { touch: false });
    await second.app.inject({ method: 'GET', url: '/products/12' });
    await eventually(async () => JSON.parse((await second.app.inject({ method: 'GET', url: '/products/12' })).body).name === 'Read on the other instance', 5_000, 'the change');
  });

  it('when the syncing instance stops, the other takes over where it stopped', async () => {
    await setup.client.close();
    await eventually(() => second.server.sidecar!.worker.state === 'syncing', 5_000, 'the takeover');
    expect(second.server.sidecar!.worker.progress().highestId).toBe(15);
    const created = setup.sim.catalogue.create({ name: 'After the takeover', slogan: 's', description: 'd', category: 'c', defaultPrice: '3.00' });
    await eventually(async () => (await second.app.inject({ method: 'GET', url: `/products/${created.id}` })).statusCode === 200, 10_000, 'the new product');
  });
});
