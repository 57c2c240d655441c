// Behind a transaction-mode pooler (docs/scaling.md "Behind a connection
// pooler"): a real PgBouncer 1.18 (bench/lib/pgbouncer.ts) in front of a
// primary and its streaming standby, with two server connections per
// database, so the API's ten pooled connections share them statement by
// statement. With DATABASE_POOLER=transaction the API serves reads with the
// query-count contract's statement counts (and PgBouncer counts exactly as
// many), writes (REST PUT, GraphQL mutations, concurrently on the same rows)
// with the change feed listening on DATABASE_DIRECT_URL, and reads from the
// standby through PgBouncer with read-your-writes. Without the setting, the
// same PgBouncer refuses the API.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { poolerTimeoutProblems } from '../../src/db/pool/pooler-timeouts.ts';
import type { ReadRouterStatus } from '../../src/db/reads/replica-router.ts';
import { createTestCatalogue, createTestClient, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { type PgBouncer, pgbouncerAvailable, startPgBouncer } from '../support/pgbouncer.ts';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../support/replication.ts';
import { chooseIds, CONTRACT_LIMITS, type ContractIds, contractCases, readGraph } from '../graphql/query-count-contract.ts';

/** The timeouts the API is configured with here, and which the test database gives every session (ALTER DATABASE). */
const STATEMENT_TIMEOUT_MS = 5_000;
const LOCK_TIMEOUT_MS = 2_000;

describe.skipIf(!pgbouncerAvailable())('behind PgBouncer in transaction mode', () => {
  let servers: ReplicatedPostgres;
  let catalogue: TestCatalogue;
  let bouncer: PgBouncer;
  let ids: ContractIds;
  const clients: TestClient[] = [];

  /** An API on the primary through PgBouncer; DATABASE_POOLER and DATABASE_DIRECT_URL unless `env` says otherwise. */
  async function pooledClient(env: Record<string, string> = {}, apiKey = true): Promise<TestClient> {
    const url = bouncer.url('catalogue');
    const client = await createTestClient(url, {
      apiKey, apiKeyDatabaseUrl: catalogue.db.url,
      env: {
        DATABASE_URL: url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: catalogue.db.url,
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS), ...env,
      },
    });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    servers = await startReplicatedPostgres();
    catalogue = await createTestCatalogue({ serverUrl: servers.primaryUrl });
    const database = new URL(catalogue.db.url).pathname.slice(1);
    // Behind the pooler the timeouts come from the database (or the role), not from each connection.
    await catalogue.direct.rows(`ALTER DATABASE ${database} SET statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
    await catalogue.direct.rows(`ALTER DATABASE ${database} SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
    await servers.caughtUp();
    ids = chooseIds(await readGraph(catalogue));
    bouncer = await startPgBouncer({ databases: { catalogue: catalogue.db.url, catalogue_standby: servers.standbyUrl(database) }, poolSize: 2 });
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await bouncer?.stop();
    await catalogue?.dispose();
    await servers?.stop();
  });

  it('is really in transaction mode: named statements of concurrent clients collide, and the API without DATABASE_POOLER is refused', async () => {
    const connections = await Promise.all(Array.from({ length: 8 }, async () => {
      const client = new pg.Client({ connectionString: bouncer.url('catalogue') });
      await client.connect();
      return client;
    }));
    const errors: string[] = [];
    try {
      await Promise.all(connections.map(async (client) => {
        for (let i = 0; i < 10; i++) {
          await client.query({ name: 'collides', text: 'SELECT $1::int AS n', values: [i] }).catch((error: Error) => { errors.push(error.message); });
        }
      }));
    } finally {
      await Promise.all(connections.map((client) => client.end()));
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((message) => /prepared statement "collides" (already exists|does not exist)/.test(message)), errors.join('\n')).toBe(true);

    const unaware = await pooledClient({ DATABASE_POOLER: 'none', DATABASE_DIRECT_URL: '' }, false);
    const response = await unaware.app.inject({ method: 'GET', url: '/products/1' });
    expect(response.statusCode).toBe(503);
    // PgBouncer names the first startup parameter it does not know: pg's statement_timeout, or the session settings' options.
    expect(bouncer.log()).toMatch(/closing because: unsupported startup parameter: (statement_timeout|options)/);
    // Closed now: its change feed would go on retrying through the pooler and
    // add to the statement totals the next test compares.
    await unaware.close();
  });

  it('reports timeouts the pooler\'s sessions do not have, and none once the database gives them', async () => {
    expect(await poolerTimeoutProblems(bouncer.url('catalogue'), { statementTimeoutMs: STATEMENT_TIMEOUT_MS, lockTimeoutMs: LOCK_TIMEOUT_MS })).toEqual([]);
    expect(await poolerTimeoutProblems(bouncer.url('catalogue'), { statementTimeoutMs: 7_000, lockTimeoutMs: LOCK_TIMEOUT_MS })).toEqual([
      'behind the transaction pooler, connections have statement_timeout = 5000 ms, not the configured 7000 ms (the API cannot set it per connection there): ALTER ROLE postgres SET statement_timeout = 7000;',
    ]);
  });

  it('keeps the query-count contract, and PgBouncer passes exactly the statements x-sql-statements reports', async () => {
    // Anonymous: an API key lookup would be a statement of its own. The change
    // feed off (on by default for live subscriptions and the cache): its own
    // background statements are the process's, not a request's, and PgBouncer's
    // totals cannot tell them apart.
    const client = await pooledClient({ ...CONTRACT_LIMITS, LIVE_SUBSCRIPTIONS: 'off', CHANGE_FEED: 'off' }, false);
    const settled = async () => {
      // SHOW STATS totals move every second (stats_period): wait until they stand still.
      let last = (await bouncer.stats()).get('catalogue')?.queries ?? 0;
      for (let i = 0; i < 10; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const now = (await bouncer.stats()).get('catalogue')?.queries ?? 0;
        if (now === last) return now;
        last = now;
      }
      return last;
    };
    const before = await settled();
    let reported = 0;
    for (const { name, statements, send } of contractCases(() => ids)) {
      const response = await send(client);
      expect(response.status, name).toBe(200);
      expect(response.body.errors, name).toBeUndefined();
      expect(response.statements, name).toBe(statements);
      reported += response.statements;
    }
    expect(await settled() - before).toBe(reported);
  });

  it('writes through PgBouncer: concurrent REST PUTs and GraphQL mutations of the same products, the change feed listening directly', async () => {
    const client = await pooledClient({ CACHE: 'on', CHANGE_FEED: 'on' });
    const health = JSON.parse((await client.app.inject({ method: 'GET', url: '/healthz' })).body) as { cache: { changeFeed: string } };
    expect(health.cache.changeFeed).toBe('listening');
    const productIds = [11, 12, 13, 14, 15];
    // Cached before the writes: what the writes must replace.
    for (const id of productIds) expect((await client.app.inject({ method: 'GET', url: `/products/${id}` })).statusCode).toBe(200);
    const writes = productIds.flatMap((id) => [0, 1, 2, 3].map((n) => ({ id, name: `Pooled ${id}.${n}`, viaGraphql: n % 2 === 1 })));
    const answers = await Promise.all(writes.map(async ({ id, name, viaGraphql }) => {
      if (viaGraphql) {
        const response = await client.post<{ updateProduct: { name: string; version: string } }>(`mutation { updateProduct(id: "${id}", input: { name: "${name}" }) { name version } }`);
        expect(response.body.errors).toBeUndefined();
        return { id, name, version: response.body.data!.updateProduct.version };
      }
      const response = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name } });
      expect(response.statusCode, response.body).toBe(200);
      // The ETag is the product's version in quotes (the same value GraphQL gives).
      return { id, name, version: JSON.parse(String(response.headers.etag)) as string };
    }));
    const created = await client.post<{ createProduct: { id: string } }>('mutation { createProduct(input: { name: "Made behind PgBouncer", slogan: "s", description: "d", category: "c", defaultPrice: "1.00" }) { id } }');
    expect(created.body.errors).toBeUndefined();
    for (const id of productIds) {
      // Applied one after the other on the row lock: four versions; the database holds one of the names
      // written, with its version, and the API shows it (the cached read before the writes is not served).
      const mine = answers.filter((answer) => answer.id === id);
      expect(new Set(mine.map((answer) => answer.version)).size).toBe(4);
      const stored = await catalogue.direct.one<{ name: string; version: string }>('SELECT name, version::text AS version FROM products WHERE id = $1', [id]);
      expect(mine.find((answer) => answer.name === stored.name)?.version).toBe(stored.version);
      const shown = await client.app.inject({ method: 'GET', url: `/products/${id}` });
      expect(JSON.parse(shown.body).name).toBe(stored.name);
    }
    const id = Number(created.body.data!.createProduct.id);
    expect((await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id])).name).toBe('Made behind PgBouncer');
  });

  it('reads from the standby through PgBouncer, with the same statement counts, and a read right after a write is fresh', async () => {
    const client = await pooledClient({ DATABASE_REPLICA_URLS: bouncer.url('catalogue_standby'), DATABASE_REPLICA_CHECK_MS: '50', ...CONTRACT_LIMITS });
    const routing = async () => JSON.parse((await client.app.inject({ method: 'GET', url: '/healthz' })).body).replicas as ReadRouterStatus;
    await vi.waitFor(async () => expect((await routing()).servers[0]).toMatchObject({ healthy: true }));
    const before = (await routing()).reads;
    let reported = 0;
    for (const { name, statements, send } of contractCases(() => ids)) {
      const response = await send(client);
      expect(response.status, name).toBe(200);
      expect(response.statements, name).toBe(statements);
      reported += response.statements;
    }
    const after = (await routing()).reads;
    expect(after.replica - before.replica).toBe(reported);
    expect(after.primary).toBe(before.primary);
    // Read-your-writes: the write's position is known, so the next read waits for the standby or goes to the primary.
    for (let n = 0; n < 5; n++) {
      const name = `Replicated ${n}`;
      expect((await client.app.inject({ method: 'PUT', url: '/products/21', payload: { name } })).statusCode).toBe(200);
      expect(JSON.parse((await client.app.inject({ method: 'GET', url: '/products/21' })).body).name).toBe(name);
      const read = await client.post<{ product: { name: string } }>('{ product(id: "21") { name } }');
      expect(read.body.data?.product.name).toBe(name);
    }
  });
});
