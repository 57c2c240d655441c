// The offline migration runner (src/db/server/migrate.ts). It must leave the same
// `_prisma_migrations` bookkeeping as `prisma migrate deploy`, refuse to run
// over a migration that was edited after being applied, and never leave half a
// migration behind; and apply the repeatable function definitions
// (prisma/functions) whenever they change, so that a database migrated long
// ago and a fresh one end with the same functions and triggers.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FUNCTIONS_DIR, MIGRATIONS_DIR, MigrationError, migrate, readRepeatables } from '../../src/db/server/migrate.ts';
import { BASELINE_MIGRATION } from '../../src/db/server/baseline.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';

const INIT = BASELINE_MIGRATION;
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

/** A private copy of prisma/migrations (or another directory) that a test may edit freely. */
function copyOfMigrations(from = MIGRATIONS_DIR): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-migrations-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}

/** An empty directory: no repeatable definitions. */
function noFunctions(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-functions-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Every function (outside extensions) and trigger of the public schema, as
 * Postgres prints its definition: what a database will actually run.
 */
const liveDefinitions = async (url: string) =>
  new Map(
    (
      await query<{ name: string; definition: string }>(
        url,
        `SELECT p.oid::regprocedure::text AS name, pg_get_functiondef(p.oid) AS definition
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
         UNION ALL
         SELECT 'trigger ' || t.tgname, pg_get_triggerdef(t.oid)
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND NOT t.tgisinternal
         ORDER BY 1`,
      )
    ).map((row) => [row.name, row.definition]),
  );

const repeatableRows = (url: string) =>
  query<{ name: string; checksum: string }>(url, 'SELECT name, checksum FROM "_repeatable_migrations" ORDER BY name');


const migrationRows = (url: string) =>
  query<MigrationRow>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name');

/** Tables in the public schema, other than the runner's own bookkeeping table. */
const userTables = async (url: string) =>
  (
    await query<{ name: string }>(
      url,
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', '_repeatable_migrations') ORDER BY 1`,
    )
  ).map((row) => row.name);

describe('migrate()', () => {
  it('applies the migrations to an empty database and records each like prisma migrate deploy', async () => {
    const { url } = await emptyDatabase();
    const log: string[] = [];

    expect(ALL[0]).toBe(INIT);
    expect(await migrate(url, (message) => log.push(message))).toEqual(ALL);
    expect(log.slice(0, ALL.length)).toEqual(ALL.map((name) => `applied migration ${name}`));

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

    expect(await userTables(url)).toEqual(['api_keys', 'browse_facet_cells', 'browse_size_cells', 'browse_size_pair_cells', 'browse_size_set_cells', 'browse_size_sets', 'features', 'idempotency_keys', 'legacy_sync_products', 'legacy_sync_state', 'load_rejects', 'load_runs', 'photos', 'product_browse', 'product_detail_documents', 'product_style_documents', 'products', 'related', 'search_buckets', 'search_lexemes', 'search_name_pairs', 'search_word_facets', 'skus', 'styles']);
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
    // The real baseline migration with a statement appended that fails at run time
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

describe('repeatable function definitions (prisma/functions)', () => {
  const FILES = readRepeatables().map((r) => r.name);

  it('are applied to a fresh database and recorded with their checksums', async () => {
    const { url } = await emptyDatabase();
    const log: string[] = [];
    await migrate(url, (message) => log.push(message));
    expect(log.at(-1)).toBe(`applied ${FILES.length} function definition(s) from prisma/functions: ${FILES.join(', ')}`);
    expect(await repeatableRows(url)).toEqual(readRepeatables().map(({ name, checksum }) => ({ name, checksum })));
    // A second run applies nothing and logs nothing.
    log.length = 0;
    await migrate(url, (message) => log.push(message));
    expect(log).toEqual([]);
  });

  it('hold every function and trigger of the database: none is defined by a versioned migration alone', async () => {
    const { url } = await emptyDatabase();
    await migrate(url);
    const sql = readRepeatables().map((r) => r.sql).join('\n');
    for (const name of (await liveDefinitions(url)).keys()) {
      const object = name.startsWith('trigger ') ? name.slice('trigger '.length) : name.slice(0, name.indexOf('('));
      expect(sql, `${name} has no definition in ${FUNCTIONS_DIR}`).toMatch(new RegExp(`CREATE OR REPLACE (?:FUNCTION|TRIGGER) ${object}\\b`));
    }
  });

  it('are the only definitions: the versioned migrations define no function or trigger', async () => {
    const { url } = await emptyDatabase();
    await migrate(url, () => {}, MIGRATIONS_DIR, noFunctions());
    expect(await liveDefinitions(url)).toEqual(new Map());
  });

  it('bring a database migrated without them, or with older versions of them, to the same definitions as a fresh one', async () => {
    const fresh = await emptyDatabase();
    await migrate(fresh.url);
    const expected = await liveDefinitions(fresh.url);

    // Migrated without the function files: the migrations alone.
    const old = await emptyDatabase();
    await migrate(old.url, () => {}, MIGRATIONS_DIR, noFunctions());
    // Migrated with an older refresh_product_browse and rebuild_browse_aggregates than the ones now in the repository.
    const edited = await emptyDatabase();
    const olderFunctions = copyOfMigrations(FUNCTIONS_DIR);
    const older = (name: string, from: string, to: string) => {
      const file = path.join(olderFunctions, `${name}.sql`);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll(from, to));
    };
    older('refresh_product_browse', "'english'", "'simple'");
    older('rebuild_browse_aggregates', 'DELETE FROM search_lexemes;', 'DELETE FROM search_lexemes WHERE true;');
    await migrate(edited.url, () => {}, MIGRATIONS_DIR, olderFunctions);
    expect(await liveDefinitions(edited.url)).not.toEqual(expected);

    for (const database of [old, edited]) {
      const log: string[] = [];
      await migrate(database.url, (message) => log.push(message));
      expect(await liveDefinitions(database.url)).toEqual(expected);
      expect(await repeatableRows(database.url)).toEqual(await repeatableRows(fresh.url));
    }
  });

  it('re-apply only an edited file, and every file after a versioned migration ran', async () => {
    const { url } = await emptyDatabase();
    const migrations = copyOfMigrations();
    const functions = copyOfMigrations(FUNCTIONS_DIR);
    await migrate(url, () => {}, migrations, functions);

    const file = path.join(functions, 'browse_cell_change.sql');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'n', n)", "'n', n, 'edited', true)"));
    const log: string[] = [];
    await migrate(url, (message) => log.push(message), migrations, functions);
    expect(log).toEqual(['applied 1 function definition(s) from prisma/functions: browse_cell_change']);
    expect(await query(url, `SELECT browse_cell_change('Kicks', 1, false, '{}', 1) AS c`)).toEqual([
      { c: { category: 'Kicks', price: 1, on_sale: false, sizes: [], n: 1, edited: true } },
    ]);

    // A versioned migration that drops a function (and its triggers) with it: the definitions are applied again.
    fs.mkdirSync(path.join(migrations, '20990101000000_drop'));
    fs.writeFileSync(path.join(migrations, '20990101000000_drop', 'migration.sql'), 'DROP FUNCTION product_browse_changed() CASCADE;\n');
    await migrate(url, () => {}, migrations, functions);
    expect(await query(url, `SELECT tgname FROM pg_trigger WHERE tgname LIKE 'product_browse_%' ORDER BY 1`)).toEqual([
      { tgname: 'product_browse_deleted' }, { tgname: 'product_browse_inserted' }, { tgname: 'product_browse_updated' },
    ]);
  });

  it('roll back every definition of a run when one fails, and name the file', async () => {
    const { url } = await emptyDatabase();
    const functions = copyOfMigrations(FUNCTIONS_DIR);
    await migrate(url, () => {}, MIGRATIONS_DIR, functions);
    const before = await liveDefinitions(url);
    const rows = await repeatableRows(url);

    fs.appendFileSync(path.join(functions, 'add_search_lexemes.sql'), '\n-- edited\n');
    fs.writeFileSync(path.join(functions, 'zz_broken.sql'), 'CREATE OR REPLACE TRIGGER zz AFTER INSERT ON no_such_table FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();\n');
    await expect(migrate(url, () => {}, MIGRATIONS_DIR, functions)).rejects.toThrow('function definition zz_broken failed: relation "no_such_table" does not exist');
    expect(await liveDefinitions(url)).toEqual(before);
    expect(await repeatableRows(url)).toEqual(rows);
  });
});
