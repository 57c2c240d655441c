// /healthz and /readyz against real dependencies going away: a closed port, a
// Postgres server that is stopped, one that stops answering (a partition),
// and a Redis that is killed and restarted. /readyz answers 503 fast
// (bounded by READINESS_TIMEOUT_MS), never hangs; /healthz stays 200.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.ts';
import { createTestClient, type TestClient } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { PostgresProcess } from '../support/postgres-process.ts';
import { redisAvailable, startTestRedis } from '../support/redis.ts';

interface CheckBody {
  ok: boolean;
  ms: number;
  error?: string;
}
interface ReadyBody {
  status: 'ready' | 'unavailable';
  checks: Record<string, CheckBody>;
}

async function ready(client: TestClient): Promise<{ status: number; body: ReadyBody; ms: number }> {
  const started = performance.now();
  const response = await client.app.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: JSON.parse(response.body) as ReadyBody, ms: performance.now() - started };
}

/**
 * A TCP proxy in front of the test Postgres that, once cut, drops its live
 * connections and accepts new ones without ever answering: a partition.
 */
class PartitionProxy {
  readonly url: string;
  private readonly server: net.Server;
  private readonly sockets: Set<net.Socket>;
  private readonly state: { cut: boolean };
  private constructor(url: string, server: net.Server, sockets: Set<net.Socket>, state: { cut: boolean }) {
    this.url = url;
    this.server = server;
    this.sockets = sockets;
    this.state = state;
  }

  static async start(databaseUrl: string): Promise<PartitionProxy> {
    const target = new URL(databaseUrl);
    const sockets = new Set<net.Socket>();
    const state = { cut: false };
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      if (state.cut) return;
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.add(upstream);
      upstream.on('error', () => {});
      socket.pipe(upstream).pipe(socket);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const through = new URL(databaseUrl);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    return new PartitionProxy(through.toString(), server, sockets, state);
  }

  cut(): void {
    this.state.cut = true;
    this.dropAll();
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Also unblocks connection attempts still waiting, so a pool can close. */
  async close(): Promise<void> {
    this.dropAll();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

describe('/readyz with Postgres', () => {
  it('is 200 with every check passing while Postgres answers (no redis check without Redis)', async () => {
    const client = await createTestClient(database.url, { apiKey: false });
    try {
      const { status, body } = await ready(client);
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'ready', checks: { postgres: { ok: true, ms: expect.any(Number) } } });
    } finally {
      await client.close();
    }
  });

  it('is 503 at once when the database URL points at a closed port, while /healthz stays 200', async () => {
    const client = await createTestClient(`postgres://postgres@127.0.0.1:${await freePort()}/catalogue`, { apiKey: false });
    try {
      const { status, body, ms } = await ready(client);
      expect(status).toBe(503);
      expect(body.status).toBe('unavailable');
      expect(body.checks.postgres).toMatchObject({ ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
      expect(ms).toBeLessThan(2_000);
      expect((await client.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('is 503 within the timeout when Postgres stops answering (connections accepted, nothing comes back)', async () => {
    const proxy = await PartitionProxy.start(database.url);
    const client = await createTestClient(proxy.url, { apiKey: false, env: { READINESS_TIMEOUT_MS: '300' } });
    try {
      expect((await ready(client)).status).toBe(200);
      proxy.cut();
      // The pool has noticed its connections are gone (so the check must open a new one).
      const pool = client.server.database.pool;
      for (let i = 0; i < 100 && pool.totalCount > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(pool.totalCount).toBe(0);
      const { status, body, ms } = await ready(client);
      expect(status).toBe(503);
      expect(body.checks.postgres).toMatchObject({ ok: false, error: 'no answer within 300 ms' });
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(2_000);
    } finally {
      await proxy.close();
      await client.close();
    }
  });

  it('a connection dropping while checked out fails its query, not the process', async () => {
    const proxy = await PartitionProxy.start(database.url);
    const client = await createTestClient(proxy.url, { apiKey: false });
    try {
      const connection = await client.server.database.pool.connect();
      const slow = connection.query('SELECT pg_sleep(10)');
      await new Promise((r) => setTimeout(r, 100));
      proxy.cut();
      await expect(slow).rejects.toThrow(/Connection terminated unexpectedly/);
      connection.release();
      // Vitest fails the run on an uncaught 'error' event; the pool discarded the dead client.
      expect(client.server.database.pool.totalCount).toBe(0);
    } finally {
      await proxy.close();
      await client.close();
    }
  });

  it('turns 503 fast when its Postgres server is stopped', async () => {
    const server = await PostgresProcess.start();
    const client = await createTestClient(server.url, { apiKey: false });
    try {
      expect((await ready(client)).status).toBe(200);
      await server.stop();
      const { status, body, ms } = await ready(client);
      expect(status).toBe(503);
      expect(body.checks.postgres?.ok).toBe(false);
      expect(body.checks.postgres?.error).toBeTruthy();
      expect(ms).toBeLessThan(2_000);
    } finally {
      await client.close();
      await server.dispose();
    }
  }, 120_000);
});

describe.skipIf(!redisAvailable())('/readyz with the Redis cache', () => {
  it('reports Redis: 503 with its error while it is down, 200 again once it is back', async () => {
    const redis = await startTestRedis();
    const client = await createTestClient(database.url, { apiKey: false, env: { CACHE: 'on', REDIS_URL: redis.url, CACHE_PREFIX: `ready${Date.now()}:` } });
    try {
      for (let i = 0; i < 50 && (await ready(client)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
      const up = await ready(client);
      expect(up.status).toBe(200);
      expect(up.body.checks.redis?.ok).toBe(true);

      await redis.stop();
      const down = await ready(client);
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('unavailable');
      expect(down.body.checks.postgres?.ok).toBe(true);
      expect(down.body.checks.redis).toMatchObject({ ok: false, error: expect.any(String) });
      expect(down.body.checks.redis?.error).not.toBe('');
      expect(down.ms).toBeLessThan(2_000);

      await redis.start();
      let back = await ready(client);
      for (let i = 0; i < 100 && back.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        back = await ready(client);
      }
      expect(back.status).toBe(200);
    } finally {
      await client.close();
      await redis.stop();
    }
  }, 60_000);
});
