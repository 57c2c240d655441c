// Sidecar mode in the real server process (`node src/main.ts`), with two
// cluster workers: one of them syncs (the advisory lock), both serve the copy
// and pass writes through, and the process stops cleanly.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLegacySimulator, type LegacySimulator } from '../../src/legacy-sim/server.ts';
import { ADMIN_HEADERS, type ApiProcess, startApiProcess } from '../support/api-process.ts';
import { createTestApiKey } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { eventually, SIDECAR_RPS, sidecarEnv } from './support.ts';

/** GET on a connection of its own (fetch keeps one alive, which stays with one worker). */
function freshGet(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('sidecar mode in the server process', () => {
  let sim: LegacySimulator;
  let database: TestDatabase;
  let api: ApiProcess;

  beforeAll(async () => {
    sim = await startLegacySimulator({ products: 20, overheadMs: 20 });
    database = await createTestDatabase();
    api = await startApiProcess({ ...sidecarEnv(sim), DATABASE_URL: database.url, WORKERS: '2', CACHE: 'on', RATE_LIMIT: 'off' });
  });

  afterAll(async () => {
    await api?.stop();
    await sim?.close();
    await database?.drop();
  });

  it('syncs once (one worker holds the lock) and serves the legacy bytes with X-Source-Age', async () => {
    // Until the copy has caught up: a product read before the sync reached it is verified first, with its related
    // products filled in as they arrive, and the listing fills in order.
    const paths = ['/products/1', '/products/20/styles', '/products/20/related', '/products?page=2&count=10'];
    const legacy: string[] = [];
    for (const path of paths) legacy.push(await (await fetch(`${sim.url}${path}`)).text());
    await eventually(async () => {
      for (const [i, path] of paths.entries()) if ((await (await fetch(`${api.url}${path}`)).text()) !== legacy[i]) return false;
      return true;
    }, 30_000, 'the sync');
    for (const path of paths) expect((await fetch(`${api.url}${path}`)).headers.get('x-source-age')).toMatch(/^\d+$/);
    const states = new Set<string>();
    await eventually(async () => {
      const health = JSON.parse(await freshGet(`${api.url}/healthz`, ADMIN_HEADERS)) as { legacySync?: { state: string } };
      if (health.legacySync) states.add(health.legacySync.state);
      return states.has('syncing') && states.has('standby');
    }, 10_000, 'both workers to report');
  });

  it('a write through either worker reads back at once', async () => {
    const key = await createTestApiKey(database.url);
    for (let i = 0; i < 4; i++) {
      const name = `Written ${i}`;
      const put = await fetch(`${api.url}/products/7`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ name }) });
      expect(put.status).toBe(200);
      expect(sim.view(7)?.name).toBe(name);
      // Either worker answers the read (the response cache is on): the change feed has dropped what the write replaced.
      expect((await (await fetch(`${api.url}/products/7`)).json() as { name: string }).name).toBe(name);
    }
  });

  it('stays within the budget and exits cleanly', async () => {
    const stats = sim.stats();
    expect(stats.maxInFlight).toBeLessThanOrEqual(2);
    const times = sim.requests().map((entry) => Date.parse(entry.receivedAt)).sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    // The sync's own requests come from one worker; the test's direct reads add a few.
    expect(most).toBeLessThanOrEqual(SIDECAR_RPS + 10);
    await api.stop();
    expect((await api.exited).code).toBe(0);
  });
});
