// Applies prisma/migrations/*/migration.sql offline and records each one in
// Prisma's own `_prisma_migrations` table, exactly as `prisma migrate deploy`
// would, so the two tools agree about which migrations a database has. A
// database migrated by the history the baseline migration replaced is
// recorded as having the baseline, without running it (./baseline.ts).
//
// Then the repeatable definitions, prisma/functions/*.sql (like Flyway's
// repeatable migrations): the live SQL of every read-model and search
// function and its triggers, one file per function, each applied whenever
// its checksum differs from the one recorded in `_repeatable_migrations`
// (and every one after a versioned migration ran, which may have dropped or
// replaced what they define). They are `CREATE OR REPLACE`, so a fresh
// database and one migrated long ago end the same.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { BASELINE_MIGRATION, supersededHistory } from './baseline.ts';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../../prisma/migrations');
export const FUNCTIONS_DIR = path.resolve(import.meta.dirname, '../../../prisma/functions');

// The advisory lock key Prisma's migration engine takes, so that our runner and
// `prisma migrate deploy` never run at the same time on one database.
const PRISMA_MIGRATE_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

const CREATE_REPEATABLES_TABLE = `
CREATE TABLE IF NOT EXISTS "_repeatable_migrations" (
    "name"        TEXT PRIMARY KEY NOT NULL,
    "checksum"    VARCHAR(64) NOT NULL,
    "applied_at"  TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

/** The repeatable definitions (prisma/functions/*.sql), in file name order. */
export function readRepeatables(dir = FUNCTIONS_DIR): Migration[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return { name: file.slice(0, -'.sql'.length), sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

export class MigrationError extends Error {}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies every pending migration; returns the names applied by this call. */
export async function migrate(databaseUrl: string, log: (message: string) => void = () => {}, dir = MIGRATIONS_DIR, functionsDir = FUNCTIONS_DIR): Promise<string[]> {
  const migrations = readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    let rows = await appliedRows(client);
    if (await carryOntoBaseline(client, migrations, rows, log)) rows = await appliedRows(client);
    const known = new Set(migrations.map((m) => m.name));
    for (const row of rows) {
      if (!known.has(row.migration_name)) log(`warning: the database has migration ${row.migration_name}, which is not in ${dir}`);
    }
    const applied = await applyPending(client, migrations, new Map(rows.map((row) => [row.migration_name, row])), log);
    await applyRepeatables(client, readRepeatables(functionsDir), applied.length > 0, log);
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end();
  }
}

/** The migrations recorded as applied (not rolled back); refuses a database where one started and never finished. */
async function appliedRows(client: pg.Client): Promise<AppliedRow[]> {
  const { rows } = await client.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  );
  for (const row of rows) {
    if (row.finished_at === null) {
      throw new MigrationError(`migration ${row.migration_name} started but never finished; fix the database by hand, then mark it rolled back`);
    }
  }
  return rows;
}

/**
 * A database migrated by the history the baseline replaced (./baseline.ts)
 * is recorded as having the baseline, in one transaction: the superseded
 * migrations' rows go and the baseline's is written as `prisma migrate
 * resolve --applied` writes it, so the table reads as a fresh database's and
 * `prisma migrate deploy` finds nothing to do. Nothing else runs: the schema
 * is the baseline's already, and the data stays as it is.
 */
async function carryOntoBaseline(client: pg.Client, migrations: Migration[], rows: AppliedRow[], log: (message: string) => void): Promise<boolean> {
  const baseline = migrations.find((m) => m.name === BASELINE_MIGRATION);
  if (!baseline || rows.some((row) => row.migration_name === BASELINE_MIGRATION)) return false;
  const history = supersededHistory(new Map(rows.map((row) => [row.migration_name, row.checksum])));
  if (history.kind === 'none') return false;
  if (history.kind === 'incomplete') throw new MigrationError(history.problem);
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM "_prisma_migrations" WHERE migration_name = ANY($1)', [history.names]);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, logs, started_at, finished_at, migration_name, applied_steps_count)
       VALUES ($1, $2, '', now(), now(), $3, 0)`,
      [crypto.randomUUID(), baseline.checksum, baseline.name],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  log(`recorded migration ${baseline.name} without running it: the database has the ${history.names.length} migrations it replaced`);
  return true;
}

/** Runs the migrations not recorded yet, each in its own transaction, recording each; returns their names. */
async function applyPending(client: pg.Client, migrations: Migration[], byName: Map<string, AppliedRow>, log: (message: string) => void): Promise<string[]> {
  const applied: string[] = [];
  for (const migration of migrations) {
    const row = byName.get(migration.name);
    if (row) {
      if (row.checksum !== migration.checksum) {
        throw new MigrationError(`migration ${migration.name} was edited after it was applied (checksum differs); add a new migration instead`);
      }
      continue;
    }
    await applyOne(client, migration);
    log(`applied migration ${migration.name}`);
    applied.push(migration.name);
  }
  return applied;
}

/** One migration in a transaction, recorded as Prisma records it; a failure leaves neither its objects nor its row. */
async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  const id = crypto.randomUUID();
  await client.query(
    'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
    [id, migration.checksum, migration.name],
  );
  try {
    await client.query('BEGIN');
    await client.query(migration.sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    await client.query('DELETE FROM "_prisma_migrations" WHERE id = $1', [id]);
    throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
  }
  await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
}

/**
 * Applies the repeatable definitions whose checksum differs from the one
 * recorded (all of them when `all`), in one transaction, in file name
 * order. Function bodies are checked when they run, not when they are
 * created (check_function_bodies off, as pg_dump does), so one function
 * may call another defined in a later file.
 */
async function applyRepeatables(client: pg.Client, repeatables: Migration[], all: boolean, log: (message: string) => void): Promise<void> {
  await client.query(CREATE_REPEATABLES_TABLE);
  const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM "_repeatable_migrations"');
  const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
  const due = repeatables.filter((r) => all || recorded.get(r.name) !== r.checksum);
  if (due.length === 0) return;
  let current = '';
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL check_function_bodies = off');
    for (const repeatable of due) {
      current = repeatable.name;
      await client.query(repeatable.sql);
      await client.query(
        `INSERT INTO "_repeatable_migrations" (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [repeatable.name, repeatable.checksum],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new MigrationError(`function definition ${current} failed: ${(error as Error).message}`);
  }
  const changed = due.filter((r) => recorded.get(r.name) !== r.checksum).map((r) => r.name);
  if (changed.length > 0) log(`applied ${changed.length} function definition(s) from prisma/functions: ${changed.join(', ')}`);
}
