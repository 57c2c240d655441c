// Sidecar mode's sync: an empty local database catches up with the legacy
// simulator and then follows its changes, within the request budget.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectSameBytes, SIDECAR_RPS, type SidecarSetup, startSidecarSetup, synced } from './support.ts';

describe('sidecar sync', () => {
  let setup: SidecarSetup;
  /** The simulator's counters and log right after the first sync: only the sidecar's requests (the tests below fetch it too). */
  let afterSync: { stats: ReturnType<SidecarSetup['sim']['stats']>; times: number[] };

  beforeAll(async () => {
    // Small listing pages: discovery pages through the listing.
    setup = await startSidecarSetup({ env: { LEGACY_SYNC_PAGE_SIZE: '7' } });
    await synced(setup);
    afterSync = { stats: setup.sim.stats(), times: setup.sim.requests().map((entry) => Date.parse(entry.receivedAt)) };
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('after a sync of an empty database, every route of a few products matches the legacy service byte for byte', async () => {
    for (const id of [1, 2, 7, 19, 30]) {
      await expectSameBytes(setup, `/products/${id}`);
      await expectSameBytes(setup, `/products/${id}/styles`);
      await expectSameBytes(setup, `/products/${id}/related`);
    }
    await expectSameBytes(setup, '/products?page=1&count=5');
    await expectSameBytes(setup, '/products?page=3&count=7');
    await expectSameBytes(setup, '/products/31');
  });

  it('read answers carry X-Source-Age', async () => {
    const response = await setup.client.app.inject({ method: 'GET', url: '/products/1' });
    expect(Number(response.headers['x-source-age'])).toBeGreaterThanOrEqual(0);
    expect(Number(response.headers['x-source-age'])).toBeLessThan(5);
  });

  it('a product changed behind the sidecar\'s back shows within an interval or so, even when its timestamps do not say so', async () => {
    // Read it: it goes to the front of the queue.
    await setup.client.app.inject({ method: 'GET', url: '/products/5' });
    const before = setup.sim.view(5)!;
    setup.sim.catalogue.update(5, { name: 'Changed behind the back', related: [1, 2, 2] }, { touch: false });
    const started = Date.now();
    await eventually(async () => {
      const response = await setup.client.app.inject({ method: 'GET', url: '/products/5' });
      return (JSON.parse(response.body) as { name: string }).name === 'Changed behind the back';
    }, 10_000, 'the change');
    expect(Date.now() - started).toBeLessThan(4_000);
    await expectSameBytes(setup, '/products/5');
    await expectSameBytes(setup, '/products/5/related');
    expect(before.name).not.toBe('Changed behind the back');
  });

  it('a new product and a deleted one show too', async () => {
    const created = setup.sim.catalogue.create({ name: 'Brand new', slogan: 's', description: 'd', category: 'c', defaultPrice: '12.00', features: [{ feature: 'Fabric', value: null }] });
    setup.sim.catalogue.delete(3);
    await eventually(async () => (await setup.client.app.inject({ method: 'GET', url: `/products/${created.id}` })).statusCode === 200, 15_000, 'the new product');
    await expectSameBytes(setup, `/products/${created.id}`);
    await expectSameBytes(setup, `/products/${created.id}/styles`);
    // Deletes are found by re-verification: a full pass of 30 products at 40 rps takes a few seconds.
    await eventually(async () => (await setup.client.app.inject({ method: 'GET', url: '/products/3' })).statusCode === 404, 20_000, 'the delete');
    await expectSameBytes(setup, '/products/3');
    await expectSameBytes(setup, '/products?page=1&count=10');
    // Many deletions there shift the listing: the page our last product was on is empty now.
    for (const id of [20, 21, 22, 23, 24, 25, 26, 27, 28]) setup.sim.catalogue.delete(id);
    const another = setup.sim.catalogue.create({ name: 'After many deletes', slogan: 's', description: 'd', category: 'c', defaultPrice: '1.00' });
    await eventually(async () => (await setup.client.app.inject({ method: 'GET', url: `/products/${another.id}` })).statusCode === 200, 15_000, 'the product after the deletes');
    await eventually(async () => {
      for (const id of [20, 21, 22, 23, 24, 25, 26, 27, 28]) if ((await setup.client.app.inject({ method: 'GET', url: `/products/${id}` })).statusCode !== 404) return false;
      return true;
    }, 15_000, 'the deletes');
    await expectSameBytes(setup, '/products?page=3&count=7');
  });

  it('an unchanged product is not written again (no new version)', async () => {
    const first = await setup.client.app.inject({ method: 'GET', url: '/products/10' });
    const passes = setup.client.server.sidecar!.worker.progress().passes;
    await eventually(() => setup.client.server.sidecar!.worker.progress().passes > passes, 20_000, 'a full pass');
    const second = await setup.client.app.inject({ method: 'GET', url: '/products/10' });
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('a copy the sync has no hashes of (as data:load leaves it) is verified, not written again', async () => {
    const client = new pg.Client({ connectionString: setup.database.url });
    await client.connect();
    try {
      const before = await setup.client.app.inject({ method: 'GET', url: '/products/11' });
      await client.query('DELETE FROM legacy_sync_products');
      const { applied } = setup.client.server.sidecar!.worker.progress();
      const passes = setup.client.server.sidecar!.worker.progress().passes;
      // Two wraps of the cursor: one whole pass at least.
      await eventually(() => setup.client.server.sidecar!.worker.progress().passes > passes + 1, 20_000, 'a full pass');
      const after = setup.client.server.sidecar!.worker.progress().applied;
      expect(after.updated).toBe(applied.updated);
      expect(after.unchanged).toBeGreaterThan(applied.unchanged + 15);
      expect((await setup.client.app.inject({ method: 'GET', url: '/products/11' })).headers.etag).toBe(before.headers.etag);
      const { rows: [hashes] } = await client.query('SELECT count(*)::int AS n FROM legacy_sync_products');
      expect(hashes.n).toBeGreaterThan(18);
    } finally {
      await client.end();
    }
  });

  it('never asks the legacy service for more than the budget', async () => {
    const { stats } = afterSync;
    expect(stats.maxInFlight).toBe(1);
    expect(stats.received).toBeGreaterThanOrEqual(91);
    // Requests per rolling second, from the simulator's own log.
    const times = [...afterSync.times].sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(SIDECAR_RPS);
  });

  it('/readyz shows the sync and stays ready', async () => {
    const response = await setup.client.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body) as { legacySync: { state: string; lagSeconds: number; breaker: string; progress: { verified: number } } };
    expect(body.legacySync).toMatchObject({ state: 'syncing', breaker: 'closed' });
    expect(body.legacySync.progress.verified).toBeGreaterThan(30);
    const metrics = await setup.client.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/legacy_sync_lag_seconds \d/);
    expect(metrics.body).toMatch(/legacy_breaker_state 0/);
  });
});
