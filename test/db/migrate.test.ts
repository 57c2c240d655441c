// The offline migration runner (src/db/server/migrate.ts). It must leave the same
// `_prisma_migrations` bookkeeping as `prisma migrate deploy`, refuse to run
// over a migration that was edited after being applied, and never leave half a
// migration behind.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, MigrationError, migrate } from '../../src/db/server/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';

const INIT = '20261121000000_init';
/** Every migration in the repository, in the order they apply. */
const ALL = fs.readdirSync(MIGRATIONS_DIR).filter((name) => fs.existsSync(path.join(MIGRATIONS_DIR, name, 'migration.sql'))).sort();

interface MigrationRow {
  id: string;
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
  logs: string | null;
}

// Every database and temp directory a test makes, removed after it.
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  return database;
}

/** A private copy of prisma/migrations that a test may edit freely. */
function copyOfMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-migrations-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}


const migrationRows = (url: string) =>
  query<MigrationRow>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name');

/** Tables in the public schema, other than the runner's own bookkeeping table. */
const userTables = async (url: string) =>
  (
    await query<{ name: string }>(
      url,
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
    )
  ).map((row) => row.name);

describe('migrate()', () => {
  it('applies the migrations to an empty database and records each like prisma migrate deploy', async () => {
    const { url } = await emptyDatabase();
    const log: string[] = [];

    expect(ALL[0]).toBe(INIT);
    expect(await migrate(url, (message) => log.push(message))).toEqual(ALL);
    expect(log).toEqual(ALL.map((name) => `applied migration ${name}`));

    // The checksum is computed here independently of the runner: Prisma's is
    // the sha256 hex of the file's bytes, and the two tools must agree.
    const rows = await migrationRows(url);
    expect(rows.map((row) => row.migration_name)).toEqual(ALL);
    for (const row of rows) {
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row).toMatchObject({
        checksum: crypto.createHash('sha256').update(sql).digest('hex'),
        applied_steps_count: 1,
        rolled_back_at: null,
      });
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
    }

    expect(await userTables(url)).toEqual(['api_keys', 'browse_facet_cells', 'browse_size_cells', 'browse_size_pair_cells', 'browse_size_set_cells', 'browse_size_sets', 'features', 'idempotency_keys', 'legacy_sync_products', 'legacy_sync_state', 'load_rejects', 'load_runs', 'photos', 'product_browse', 'product_detail_documents', 'product_style_documents', 'products', 'related', 'search_lexemes', 'skus', 'styles']);
  });

  it('applies nothing the second time', async () => {
    const { url } = await emptyDatabase();
    await migrate(url);
    const before = await migrationRows(url);

    const log: string[] = [];
    expect(await migrate(url, (message) => log.push(message))).toEqual([]);
    expect(log).toEqual([]);
    // Same row, untouched: not re-inserted, not re-stamped.
    expect(await migrationRows(url)).toEqual(before);
  });

  it('refuses to run when an applied migration was edited since', async () => {
    const { url } = await emptyDatabase();
    const dir = copyOfMigrations();
    await migrate(url, () => {}, dir);
    const before = await migrationRows(url);

    fs.appendFileSync(path.join(dir, INIT, 'migration.sql'), '\nCREATE INDEX "products_name_idx" ON "products"("name");\n');

    const run = migrate(url, () => {}, dir);
    await expect(run).rejects.toBeInstanceOf(MigrationError);
    await expect(run).rejects.toThrow(`migration ${INIT} was edited after it was applied (checksum differs); add a new migration instead`);
    // The edit was not applied, and the record still holds the original checksum.
    expect(await migrationRows(url)).toEqual(before);
    expect(await query(url, `SELECT 1 FROM pg_indexes WHERE indexname = 'products_name_idx'`)).toEqual([]);
  });

  it('rolls back a failing migration completely: no row, no partial tables', async () => {
    const { url } = await emptyDatabase();
    const dir = copyOfMigrations();
    // Creates a table and an index, then fails on its third statement: all
    // three must disappear together.
    const broken = '20990101000000_broken';
    fs.mkdirSync(path.join(dir, broken));
    fs.writeFileSync(
      path.join(dir, broken, 'migration.sql'),
      [
        'CREATE TABLE "half_done" ("id" SERIAL NOT NULL, CONSTRAINT "half_done_pkey" PRIMARY KEY ("id"));',
        'CREATE INDEX "products_category_idx" ON "products"("category");',
        'ALTER TABLE "no_such_table" ADD COLUMN "x" TEXT;',
      ].join('\n'),
    );

    const run = migrate(url, () => {}, dir);
    await expect(run).rejects.toBeInstanceOf(MigrationError);
    await expect(run).rejects.toThrow(`migration ${broken} failed: relation "no_such_table" does not exist`);

    // The good migrations before it stay applied and recorded; the broken one
    // leaves neither a row (not even an unfinished one, which would block every
    // later run) nor any of its objects.
    const rows = await migrationRows(url);
    expect(rows.map((row) => row.migration_name)).toEqual(ALL);
    expect(rows.every((row) => row.finished_at instanceof Date)).toBe(true);
    expect(await userTables(url)).not.toContain('half_done');
    expect(await query(url, `SELECT 1 FROM pg_indexes WHERE indexname = 'products_category_idx'`)).toEqual([]);

    // And once fixed, the next run picks it up from where it stopped.
    fs.writeFileSync(path.join(dir, broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" SERIAL NOT NULL);\n');
    expect(await migrate(url, () => {}, dir)).toEqual([broken]);
  });

  it('leaves an empty database empty when its first migration fails', async () => {
    const { url } = await emptyDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-migrations-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, INIT));
    // The real init migration with a statement appended that fails at run time
    // (a syntax error would not do: Postgres parses the whole script before
    // running any of it), so every table it created must be rolled back.
    const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, INIT, 'migration.sql'), 'utf8');
    fs.writeFileSync(path.join(dir, INIT, 'migration.sql'), `${sql}\nINSERT INTO "products" ("name") VALUES ('incomplete');\n`);

    await expect(migrate(url, () => {}, dir)).rejects.toThrow(
      `migration ${INIT} failed: null value in column "slogan" of relation "products" violates not-null constraint`,
    );
    expect(await migrationRows(url)).toEqual([]);
    expect(await userTables(url)).toEqual([]);
  });
});
