// Readiness: can this instance serve right now? Each dependency is checked
// with a bounded wait, all at once, so /readyz answers within the timeout
// even when a dependency hangs instead of refusing.
import type { Redis } from 'ioredis';
import type pg from 'pg';

export interface CheckResult {
  ok: boolean;
  /** How long the check took (or how long it was given, when it timed out). */
  ms: number;
  error?: string;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** A dependency probe: resolves when the dependency answered. */
export type Check = () => Promise<void>;

function withTimeout(check: Check, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

async function run(check: Check, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  try {
    await withTimeout(check, timeoutMs);
    return { ok: true, ms: elapsed() };
  } catch (error) {
    return { ok: false, ms: elapsed(), error: error instanceof Error ? error.message || error.name : String(error) };
  }
}

/** Runs every check at once; ready when all pass. */
export async function checkReadiness(checks: Record<string, Check>, timeoutMs: number): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => run(checks[name] as Check, timeoutMs)));
  return {
    ready: results.every((result) => result.ok),
    checks: Object.fromEntries(names.map((name, i) => [name, results[i] as CheckResult])),
  };
}

/** `SELECT 1` on a pooled connection: the pool can reach Postgres and hand out a connection. */
export function postgresCheck(pool: pg.Pool): Check {
  return async () => {
    const client = await pool.connect();
    try {
      await client.query('SELECT 1');
      client.release();
    } catch (error) {
      // A connection that failed a query is not given back to the pool.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  };
}

/** PING on the cache's Redis connection (which fails at once while disconnected: no offline queue). */
export function redisCheck(client: Redis): Check {
  return async () => {
    await client.ping();
  };
}
