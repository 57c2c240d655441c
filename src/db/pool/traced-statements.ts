// Postgres spans, when traces are on: each statement a client span named
// after its prepared statement (or its first word, for the few unnamed ones:
// BEGIN, COMMIT, a pg_notify), with the rows it returned; and each wait for a
// pooled connection (pg.pool.connect) with the pool's queue as it began.
// Every statement of the API passes through countedPool (pool.ts), so this
// is the one place they are traced. No text and no parameter is recorded:
// names say which statement, and its text is in the source.
import type pg from 'pg';
import { type Span, SpanKind, failed, inSpan, recordingSpan, traces, withSpan } from '../../tracing/spans.ts';

type Query = (...args: unknown[]) => unknown;

/** The statement's name, or the first word of its text; undefined for what is not a plain statement (a cursor, a COPY stream). */
function statementName(config: unknown): string | undefined {
  if (typeof config === 'string') return config.trimStart().split(/\s/, 1)[0]!.toUpperCase();
  if (config === null || typeof config !== 'object' || typeof (config as { submit?: unknown }).submit === 'function') return undefined;
  const { name, text } = config as { name?: string; text?: string };
  return name ?? (typeof text === 'string' ? statementName(text) : undefined);
}

/** Ends a statement's span with what it returned. */
function settled(span: Span, result: Promise<unknown>): Promise<unknown> {
  return result.then((done) => {
    const { rows, rowCount } = done as { rows?: unknown[]; rowCount?: number | null };
    span.setAttribute('db.response.returned_rows', Array.isArray(rows) ? rows.length : rowCount ?? 0);
    span.end();
    return done;
  }, (error: unknown) => {
    failed(span, error);
    span.end();
    throw error;
  });
}

/**
 * Sends `args` through `query`, in a span when a recorded span is running
 * and the call returns a promise (`named`: the arguments as the caller
 * wrote them, whose name a transaction pooler's unnamed copy lost).
 */
export function tracedQuery(query: Query, args: unknown[], named: unknown[]): unknown {
  const tracer = traces.tracer;
  const name = tracer && recordingSpan() && typeof args[args.length - 1] !== 'function' ? statementName(named[0]) : undefined;
  if (!tracer || name === undefined) return query(...args);
  const span = tracer.startSpan(name, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': statementName(typeof named[0] === 'string' ? named[0] : (named[0] as { text?: string }).text ?? '') ?? name, 'catalogue.db.statement': name },
  });
  const result = withSpan(span, () => query(...args));
  return result instanceof Promise ? settled(span, result) : (span.end(), result);
}

/** Makes `pool`'s promise checkouts (withClient's) pg.pool.connect spans: how long a request waited for a connection. */
export function tracePoolCheckouts(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  (pool as unknown as { connect: (callback?: unknown) => unknown }).connect = (callback?: unknown) => {
    if (callback !== undefined || !recordingSpan()) return connect(callback);
    return inSpan('pg.pool.connect', {
      'db.system.name': 'postgresql',
      'catalogue.db.pool.idle': pool.idleCount,
      'catalogue.db.pool.total': pool.totalCount,
      'catalogue.db.pool.waiting': pool.waitingCount,
    }, () => connect() as Promise<unknown>);
  };
}
