// Applies prisma/migrations/*/migration.sql offline and records each one in
// Prisma's own `_prisma_migrations` table, exactly as `prisma migrate deploy`
// would, so the two tools agree about which migrations a database has.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../../prisma/migrations');

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

export class MigrationError extends Error {}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies every pending migration; returns the names applied by this call. */
export async function migrate(databaseUrl: string, log: (message: string) => void = () => {}, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const byName = new Map(rows.map((row) => [row.migration_name, row]));
    for (const row of rows) {
      if (row.finished_at === null) {
        throw new MigrationError(`migration ${row.migration_name} started but never finished; fix the database by hand, then mark it rolled back`);
      }
    }
    const known = new Set(migrations.map((m) => m.name));
    for (const row of rows) {
      if (!known.has(row.migration_name)) log(`warning: the database has migration ${row.migration_name}, which is not in ${dir}`);
    }
    for (const migration of migrations) {
      const row = byName.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was edited after it was applied (checksum differs); add a new migration instead`);
        }
        continue;
      }
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
      log(`applied migration ${migration.name}`);
      applied.push(migration.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}
