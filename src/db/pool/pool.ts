// The pg pool every statement of the API goes through, counted (per request,
// for the query-count contract and metrics).
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { withSessionSettings } from './session-settings.ts';
import { tracedQuery, tracePoolCheckouts } from './traced-statements.ts';
import { traces } from '../../tracing/spans.ts';

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
  /** The count of the request running now; undefined outside requests. */
  current(): { count: number } | undefined {
    return this.scope.getStore();
  }
  /** Runs `fn` outside any request's count: work shared by every request (replica health checks). */
  uncharged<T>(fn: () => T): T {
    return this.scope.exit(fn);
  }
  record(): void {
    this.total++;
    const current = this.scope.getStore();
    if (current) current.count++;
  }
}

export interface Database {
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
  /** Postgres lock_timeout of every connection: the longest a statement waits for a row lock (55P03 then). */
  lockTimeoutMs?: number;
  /** PGOPTIONS (config.pgOptions), kept after the API's own session settings. */
  pgOptions?: string;
  /** Connections go through a transaction-mode pooler (DATABASE_POOLER=transaction): no session state at all. */
  transactionPooler?: boolean;
}

/** How much longer than statement_timeout the driver waits for a reply (a server that stopped answering altogether). */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

/**
 * A pool whose every wait is bounded, so an outage is an error within seconds,
 * never a hang. pg-pool applies its one `connectionTimeoutMillis` both to the
 * wait in its queue and to opening a connection; each client gets the shorter
 * connect timeout of its own, so a host that does not answer fails fast even
 * when the queue would wait longer. Broken connections leave the pool when
 * they fail (see withClient in reads.ts), and new ones re-prepare statements.
 */
export function boundedPoolConfig(url: string, options: PoolOptions): pg.PoolConfig {
  const { connectTimeoutMs, queueTimeoutMs, statementTimeoutMs, transactionPooler } = options;
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}) });
    }
  }
  return {
    connectionString: withSessionSettings(url, { lockTimeoutMs: options.lockTimeoutMs, pgOptions: options.pgOptions, transactionPooler }),
    max: options.poolSize,
    Client: BoundedClient,
    // A peer that vanished without closing the socket (host down, cable cut) is noticed.
    keepAlive: true,
    ...(queueTimeoutMs ? { connectionTimeoutMillis: queueTimeoutMs } : {}),
    // statement_timeout is a startup parameter too, which a transaction pooler refuses (its server connections get it from the role).
    ...(statementTimeoutMs ? { ...(transactionPooler ? {} : { statement_timeout: statementTimeoutMs }), query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS } : {}),
  };
}

/**
 * A statement without its name: Postgres parses and plans it at every
 * execution instead of once per connection. Behind a transaction-mode pooler
 * consecutive statements of one client run on whichever server connection is
 * free, where a statement named on another does not exist (or exists
 * already), so the catalogue's named statements (queries.ts, the writes')
 * are sent unnamed there.
 */
function unnamed(args: unknown[]): unknown[] {
  const [config] = args;
  // Plain query configs only: a Submittable (cursor, pg.Query) is sent as it is.
  if (config === null || typeof config !== 'object' || !('name' in config) || typeof (config as { submit?: unknown }).submit === 'function') return args;
  const { name: _name, ...rest } = config as { name?: string };
  return [rest, ...args.slice(1)];
}

/**
 * A pg pool whose every statement is recorded by `statements` (the primary's,
 * and each read replica's); with `unnamedStatements`, sent unnamed.
 */
export function countedPool(statements: StatementCounter, config: pg.PoolConfig, options: { unnamedStatements?: boolean } = {}): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('connect', (client) => {
    // A connection that drops while checked out (Postgres stopped, network
    // cut) emits 'error' on its client, which would crash the process with no
    // listener. The query in flight fails on its own, and the pool discards
    // the client when it is released (no longer queryable).
    client.on('error', () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements.record();
      const sent = options.unnamedStatements ? unnamed(args) : args;
      // With traces on, each statement a span (traced-statements.ts).
      return traces.tracer ? tracedQuery(query, sent, args) : query(...sent);
    };
  });
  if (traces.tracer) tracePoolCheckouts(pool);
  pool.on('error', () => {}); // a dropped idle connection; the next query reports real problems
  return pool;
}

export function connectDatabase(url: string, options: PoolOptions): Database {
  const statements = new StatementCounter();
  const pool = countedPool(statements, boundedPoolConfig(url, options), { unnamedStatements: options.transactionPooler });
  return {
    pool, statements,
    async close() {
      await pool.end().catch(() => {});
    },
  };
}
