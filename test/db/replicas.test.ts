// Read replicas against a real streaming standby (test/support/replication.ts):
// reads are answered by the standby and counted in x-sql-statements, writes go
// to the primary, a read right after a write is fresh through REST and GraphQL
// while the standby's replay is paused (and, with Redis, through another
// instance), and reads keep working while the standby is down.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import type { ReadRouterStatus } from '../../src/db/reads/replica-router.ts';
import { Replica } from '../../src/db/reads/replica.ts';
import { freePort } from '../../bench/lib/free-port.ts';
import { createTestCatalogue, createTestClient, DirectDb, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis } from '../support/redis.ts';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../support/replication.ts';

/** The app's connections carry this name, so the test can find them on either server. */
const APP = 'catalogue-replicas-test';

function asApp(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', APP);
  return parsed.toString();
}

/**
 * Ends the app's connections to a server and waits until they are gone: an
 * exiting backend flushes its statistics at once, an idle one only about every
 * 10 s. (The app's pools drop the ended connections and open new ones.)
 */
async function flushAppStatistics(url: string): Promise<void> {
  const appBackends = 'SELECT pid FROM pg_stat_activity WHERE application_name = $1';
  const ended = (await queryOnce<{ pid: number }>(url, appBackends, [APP])).map((row) => row.pid);
  await queryOnce(url, 'SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [ended]);
  await vi.waitFor(async () => {
    const remaining = (await queryOnce<{ pid: number }>(url, appBackends, [APP])).map((row) => row.pid);
    expect(remaining.filter((pid) => ended.includes(pid))).toEqual([]);
  });
}

describe('read replicas (a real streaming standby)', () => {
  let servers: ReplicatedPostgres;
  let catalogue: TestCatalogue;
  /** The catalogue database on the standby. */
  let standby: DirectDb;
  let standbyUrl: string;
  let client: TestClient;

  beforeAll(async () => {
    servers = await startReplicatedPostgres();
    catalogue = await createTestCatalogue({ serverUrl: servers.primaryUrl });
    await servers.caughtUp();
    standbyUrl = servers.standbyUrl(new URL(catalogue.db.url).pathname.slice(1));
    standby = new DirectDb(standbyUrl);
    client = await createTestClient(asApp(catalogue.db.url), { env: { DATABASE_REPLICA_URLS: asApp(standbyUrl), DATABASE_REPLICA_CHECK_MS: '50' } });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await standby?.close();
    await catalogue?.dispose();
    await servers?.stop();
  });

  const get = async (app: TestClient, url: string) => {
    const response = await app.app.inject({ method: 'GET', url });
    return { status: response.statusCode, statements: Number(response.headers['x-sql-statements']), body: JSON.parse(response.body) as Record<string, any> };
  };
  const put = async (app: TestClient, url: string, payload: Record<string, unknown>) => {
    const response = await app.app.inject({ method: 'PUT', url, payload });
    return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, any> };
  };
  const routing = async (app: TestClient = client) => (await get(app, '/healthz')).body.replicas as ReadRouterStatus;
  /**
   * Scans of catalogue tables a server has counted (its own cumulative
   * statistics). API key lookups are not catalogue reads: they go to the primary.
   */
  const scans = async (db: DirectDb) => Number((await db.one<{ scans: string }>(
    `SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)::text AS scans FROM pg_stat_user_tables WHERE relname <> 'api_keys'`,
  )).scans);
  const productName = async (db: DirectDb, id: number) => (await db.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id])).name;
  const replayPaused = async (paused: boolean) => {
    await standby.rows(paused ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()');
    await vi.waitFor(async () => {
      expect((await standby.one<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state')).state).toBe(paused ? 'paused' : 'not paused');
    });
  };

  it('answers reads from the replica, counting its statements in x-sql-statements; the primary reads nothing', async () => {
    const before = { standby: await scans(standby), primary: await scans(catalogue.direct), reads: (await routing()).reads };
    let statements = 0;
    for (const id of [1, 2, 3]) {
      const styles = await get(client, `/products/${id}/styles`);
      expect(styles.status).toBe(200);
      expect(styles.statements).toBe(1);
      const product = await client.post<{ product: { name: string; features: unknown[] } }>(`{ product(id: "${id}") { name features { feature } } }`);
      expect(product.body.data?.product.name).toBe(await productName(catalogue.direct, id));
      statements += styles.statements + product.statements;
    }
    const after = (await routing()).reads;
    expect(after.replica - before.reads.replica).toBe(statements);
    expect(after.primary).toBe(before.reads.primary);
    // The servers' own statistics agree: the standby scanned tables for every statement, the primary for none.
    await Promise.all([flushAppStatistics(standbyUrl), flushAppStatistics(catalogue.db.url)]);
    expect(await scans(standby) - before.standby).toBeGreaterThanOrEqual(statements);
    expect(await scans(catalogue.direct)).toBe(before.primary);
  });

  it('writes to the primary, and a read right after a write is fresh (REST and GraphQL) while the replica lags', async () => {
    await vi.waitFor(async () => expect((await routing()).servers[0]).toMatchObject({ healthy: true }));
    const status = await routing();
    await replayPaused(true);
    try {
      const written = await put(client, '/products/7', { name: 'Seven, just written' });
      expect(written.status).toBe(200);
      expect(written.body.name).toBe('Seven, just written');
      expect((await get(client, '/products/7')).body.name).toBe('Seven, just written');

      const mutation = await client.post<{ updateProduct: { defaultPrice: string } }>('mutation { updateProduct(id: "8", input: { defaultPrice: "8.88" }) { defaultPrice } }');
      expect(mutation.body.data?.updateProduct.defaultPrice).toBe('8.88');
      const read = await client.post<{ product: { defaultPrice: string; features: unknown[] } }>('{ product(id: "8") { defaultPrice features { feature } } }');
      expect(read.body.data?.product.defaultPrice).toBe('8.88');

      // The primary has the writes; the paused standby does not, so the fresh reads cannot have come from it.
      expect(await productName(catalogue.direct, 7)).toBe('Seven, just written');
      expect(await productName(standby, 7)).not.toBe('Seven, just written');
      const lagging = await routing();
      expect(lagging.servers[0]).toMatchObject({ healthy: true });
      expect(lagging.reads.primary).toBeGreaterThan(status.reads.primary);
      expect(lagging.latestWrite).not.toBeNull();
    } finally {
      await replayPaused(false);
    }
    // Once it has replayed the writes, the replica answers again.
    await vi.waitFor(async () => {
      const before = (await routing()).reads.replica;
      expect((await get(client, '/products/7')).body.name).toBe('Seven, just written');
      expect((await routing()).reads.replica).toBeGreaterThan(before);
    }, { timeout: 5_000, interval: 50 });
  });

  it.skipIf(!redisAvailable())('with Redis, a write through one instance is read fresh through another while the replica lags', async () => {
    const redis = await startTestRedis();
    const env = { DATABASE_REPLICA_URLS: standbyUrl, DATABASE_REPLICA_CHECK_MS: '50', REDIS_URL: redis.url, CACHE: 'on', CACHE_PREFIX: `replicas${Date.now()}:` };
    const [a, b] = await Promise.all([createTestClient(catalogue.db.url, { env }), createTestClient(catalogue.db.url, { env })]);
    try {
      expect((await get(b, '/products/10')).status).toBe(200);
      expect((await routing(b)).reads.replica).toBeGreaterThan(0);
      await replayPaused(true);
      try {
        expect((await put(a, '/products/10', { name: 'Ten, written through A' })).status).toBe(200);
        expect((await get(b, '/products/10')).body.name).toBe('Ten, written through A');
        // An instance that shares nothing (no Redis) still reads the lagging replica: the documented caveat.
        expect((await get(client, '/products/10')).body.name).not.toBe('Ten, written through A');
      } finally {
        await replayPaused(false);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    }
  });

  it('answers reads from the primary while the replica is down, and from the replica again once it is back', async () => {
    await servers.stopStandby();
    try {
      const detail = await get(client, '/products/11');
      expect(detail.status).toBe(200);
      expect(detail.body.name).toBe(await productName(catalogue.direct, 11));
      const product = await client.post<{ product: { name: string } }>('{ product(id: "12") { name styles { name } } }');
      expect(product.status).toBe(200);
      expect(product.body.errors).toBeUndefined();
      expect(product.body.data?.product.name).toBe(await productName(catalogue.direct, 12));
      // The router learns it from a failed read or from its next check (every
      // DATABASE_REPLICA_CHECK_MS); a check answered just before the stop can
      // land after the reads, so wait for it (a CI run asserted too early).
      await vi.waitFor(async () => expect((await routing()).servers[0]).toMatchObject({ healthy: false }), { timeout: 5_000, interval: 50 });
    } finally {
      await servers.startStandby();
    }
    await vi.waitFor(async () => expect((await routing()).servers[0]).toMatchObject({ healthy: true }), { timeout: 5_000, interval: 50 });
    const before = (await routing()).reads.replica;
    expect((await get(client, '/products/11')).status).toBe(200);
    expect((await routing()).reads.replica).toBeGreaterThan(before);
  });

  it('counts a replica whose pool stayed full as busy, not down; one that does not answer as down', async () => {
    const pool = new pg.Pool({ connectionString: standbyUrl, max: 1, connectionTimeoutMillis: 200 });
    const busy = new Replica('standby', pool, () => {});
    const nowhere = new Replica('nowhere', new pg.Pool({ connectionString: `postgresql://postgres@127.0.0.1:${await freePort()}/x`, connectionTimeoutMillis: 200 }), () => {});
    try {
      await busy.check();
      expect(busy.status()).toMatchObject({ healthy: true, replayed: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/) });
      const held = await pool.connect();
      await busy.check(); // waits 200 ms for the only connection, in vain
      held.release();
      expect(busy.healthy).toBe(true);
      await nowhere.check();
      expect(nowhere.status()).toMatchObject({ healthy: false, replayed: null, error: expect.stringContaining('ECONNREFUSED') });
    } finally {
      await pool.end();
      await nowhere.pool.end();
    }
  });
});
