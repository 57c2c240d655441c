// The Prisma client on a pg pool we own, so every SQL statement that reaches
// Postgres can be counted (per request, for the query-count contract and metrics).
import { AsyncLocalStorage } from 'node:async_hooks';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Prisma = PrismaClient;

/** Counts statements issued inside one scope (a request), plus a global total. */
export class StatementCounter {
  total = 0;
  private readonly scope = new AsyncLocalStorage<{ count: number }>();
  run<T>(fn: () => T): { result: T; counter: { count: number } } {
    const counter = { count: 0 };
    return { result: this.scope.run(counter, fn), counter };
  }
  bind<T>(counter: { count: number }, fn: () => T): T {
    return this.scope.run(counter, fn);
  }
  record(): void {
    this.total++;
    const current = this.scope.getStore();
    if (current) current.count++;
  }
}

export interface Database {
  prisma: PrismaClient;
  pool: pg.Pool;
  statements: StatementCounter;
  close(): Promise<void>;
}

export interface PoolOptions {
  poolSize: number;
  /** Opening one connection (TCP, TLS, authentication) is abandoned after this long. */
  connectTimeoutMs?: number;
  /** A checkout waits at most this long for a connection, queued behind busy ones or while one opens. */
  queueTimeoutMs?: number;
  /** Postgres statement_timeout of every connection; the driver stops waiting a second later. */
  statementTimeoutMs?: number;
}

/** How much longer than statement_timeout the driver waits for a reply (a server that stopped answering altogether). */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

/**
 * A pool whose every wait is bounded, so an outage is an error within seconds,
 * never a hang. pg-pool applies its one `connectionTimeoutMillis` both to the
 * wait in its queue and to opening a connection; each client gets the shorter
 * connect timeout of its own, so a host that does not answer fails fast even
 * when the queue would wait longer. Broken connections leave the pool when
 * they fail (see CatalogQueries.run), and new ones re-prepare statements.
 */
export function createPool(url: string, options: PoolOptions): pg.Pool {
  const { connectTimeoutMs, queueTimeoutMs, statementTimeoutMs } = options;
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}) });
    }
  }
  return new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    Client: BoundedClient,
    // A peer that vanished without closing the socket (host down, cable cut) is noticed.
    keepAlive: true,
    ...(queueTimeoutMs ? { connectionTimeoutMillis: queueTimeoutMs } : {}),
    ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS } : {}),
  });
}

export function connectDatabase(url: string, options: PoolOptions): Database {
  const pool = createPool(url, options);
  const statements = new StatementCounter();
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements.record();
      return query(...args);
    };
  });
  pool.on('error', () => {}); // a dropped idle connection; the next query reports real problems
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma, pool, statements,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
