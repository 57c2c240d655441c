// DATABASE_POOLER and DATABASE_DIRECT_URL: behind a transaction-mode pooler
// the API needs the primary directly for what needs a session, and says so.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sessionDatabaseUrl } from '../../src/db/server/session-url.ts';
import { withSessionSettings } from '../../src/db/pool/session-settings.ts';
import { configProblems as problems } from '../support/config-problems.ts';

const POOLER = 'postgres://api:secret@pgbouncer:6432/catalogue';
const DIRECT = 'postgres://api:secret@primary:5432/catalogue';

describe('pooler configuration', () => {
  it('is off by default; with a direct URL, sessions of their own go there', () => {
    const plain = loadConfig({ DATABASE_URL: DIRECT });
    expect(plain.databasePooler).toBe('none');
    expect(sessionDatabaseUrl(plain, DIRECT)).toBe(DIRECT);
    const pooled = loadConfig({ DATABASE_URL: POOLER, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: DIRECT });
    expect(pooled.databasePooler).toBe('transaction');
    expect(sessionDatabaseUrl(pooled, POOLER)).toBe(DIRECT);
  });

  it('sends no session settings in the startup message behind a transaction pooler', () => {
    expect(new URL(withSessionSettings(POOLER, { lockTimeoutMs: 2000 })).searchParams.get('options')).toBe('-c plan_cache_mode=force_generic_plan -c max_parallel_workers_per_gather=0 -c jit=off -c work_mem=16MB -c lock_timeout=2000');
    expect(withSessionSettings(POOLER, { lockTimeoutMs: 2000, pgOptions: '-c work_mem=8MB', transactionPooler: true })).toBe(POOLER);
  });

  it('reports a transaction pooler without the direct URL or without DATABASE_URL, and a bad value', () => {
    expect(problems({ DATABASE_URL: POOLER, DATABASE_POOLER: 'transaction' })).toEqual([
      "DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: the primary without the pooler, for what needs a session of its own (migrations, the change feed's LISTEN, the sidecar's sync lock)",
    ]);
    expect(problems({ DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: DIRECT })).toEqual([
      'DATABASE_POOLER=transaction needs DATABASE_URL (the pooler): the embedded Postgres has none',
    ]);
    expect(problems({ DATABASE_POOLER: 'session' })).toEqual(['DATABASE_POOLER must be one of none, transaction (got "session")']);
    expect(problems({ DATABASE_DIRECT_URL: 'mysql://x/y' })).toEqual(['DATABASE_DIRECT_URL must start with postgres:// or postgresql:// (got "mysql://...")']);
  });
});
