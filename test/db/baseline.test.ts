// The baseline migration and a database migrated before it: one built by the
// history the baseline replaced (kept as it ran in ./superseded-migrations/,
// with today's function files, as the runner left such a database) is
// carried onto the baseline by the runner without running it, and ends with
// the schema of a fresh database, its data as it was, and `_prisma_migrations`
// as a fresh database's (so `prisma migrate deploy` finds nothing to do).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASELINE_MIGRATION, SUPERSEDED_MIGRATIONS, supersededHistory } from '../../src/db/server/baseline.ts';
import { MIGRATIONS_DIR, MigrationError, migrate, readMigrations } from '../../src/db/server/migrate.ts';
import { queryOnce as query } from '../../src/db/pool/query-once.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { schemaSnapshot } from '../support/schema-snapshot.ts';

const SUPERSEDED_DIR = path.join(import.meta.dirname, 'superseded-migrations');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  return database;
}

function temporaryDirectory(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-migrations-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A database migrated by the superseded history, with today's function files. */
async function migratedBeforeTheBaseline(): Promise<TestDatabase> {
  const database = await emptyDatabase();
  await migrate(database.url, () => {}, SUPERSEDED_DIR);
  return database;
}

/** A database migrated by the superseded history but its last `without` migrations (and no function files: today's need those). */
async function migratedByPartOfTheHistory(without: number): Promise<TestDatabase> {
  const database = await emptyDatabase();
  const dir = temporaryDirectory();
  for (const [name] of SUPERSEDED_MIGRATIONS.slice(0, -without)) fs.cpSync(path.join(SUPERSEDED_DIR, name), path.join(dir, name), { recursive: true });
  await migrate(database.url, () => {}, dir, temporaryDirectory());
  return database;
}

/** A small catalogue written through the triggers, and the read models the loader builds. */
const CATALOGUE = `
  INSERT INTO products (id, name, slogan, description, category, default_price) VALUES
    (1, 'Forest Dress', 'Made well', 'A dress for the forest.', 'Dresses', 40),
    (2, 'The Forest Linen Dress', 'Made in Italy', 'Linen, café au lait.', 'Dresses', 60),
    (3, 'Running-Shoes Max', 'Fast', 'Shoes, mail me at foo@example.com', 'Kicks', 90);
  INSERT INTO features (product_id, feature, value) VALUES (1, 'Fabric', 'Cotton'), (3, 'Sole', 'Rubber');
  INSERT INTO styles (id, product_id, name, sale_price, original_price, is_default) VALUES (1, 1, 'Green', NULL, 40, true), (2, 3, 'Red', 80, 90, false);
  INSERT INTO skus (style_id, size, quantity) VALUES (1, 'M', 3), (1, 'L', 0), (2, '8', 5), (2, '9', 2);
  INSERT INTO photos (style_id, url, thumbnail_url) VALUES (1, 'https://x/1.jpg', 'https://x/1t.jpg');
  INSERT INTO related (current_product_id, related_product_id) VALUES (1, 2), (3, 2), (2, 1);
  INSERT INTO api_keys (name, key_hash, prefix) VALUES ('kept', 'hash', 'ck_kept');
  INSERT INTO load_runs (source_dir, status) VALUES ('/data', 'done');
  SELECT rebuild_browse_aggregates();
  SELECT rebuild_search_buckets();
  SELECT rebuild_search_word_facets(1);`;

/** Every row of every table (the runner's own two aside) and every sequence's position, as text. */
async function allData(url: string): Promise<Record<string, string[]>> {
  const tables = await query<{ name: string }>(url,
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', '_repeatable_migrations') ORDER BY 1`);
  const data: Record<string, string[]> = {};
  for (const { name } of tables) {
    data[name] = (await query<{ row: string }>(url, `SELECT row_to_json(t)::text AS row FROM "${name}" t ORDER BY 1`)).map((r) => r.row);
  }
  data['sequences'] = (await query<{ s: string }>(url, `SELECT sequencename || ' ' || coalesce(last_value::text, '-') AS s FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`)).map((r) => r.s);
  return data;
}

const migrationRows = (url: string) =>
  query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null; logs: string | null }>(
    url, 'SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM "_prisma_migrations" ORDER BY migration_name');
const repeatableRows = (url: string) => query(url, 'SELECT name, checksum FROM "_repeatable_migrations" ORDER BY name');

describe('a database migrated before the baseline', () => {
  it('is carried onto the baseline without running it: the schema of a fresh database, its data as it was, its records a fresh one\'s', async () => {
    const old = await migratedBeforeTheBaseline();
    await query(old.url, CATALOGUE);
    const data = await allData(old.url);
    expect(data['product_browse']).toHaveLength(3);
    expect(data['search_word_facets']!.length).toBeGreaterThan(0);

    const log: string[] = [];
    expect(await migrate(old.url, (message) => log.push(message))).toEqual([]);
    expect(log).toEqual([`recorded migration ${BASELINE_MIGRATION} without running it: the database has the 29 migrations it replaced`]);

    const fresh = await emptyDatabase();
    await migrate(fresh.url);
    expect(await schemaSnapshot(old.url)).toEqual(await schemaSnapshot(fresh.url));
    expect(await allData(old.url)).toEqual(data);

    // What `prisma migrate deploy` reads: the baseline alone, finished, with its file's checksum.
    const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, BASELINE_MIGRATION, 'migration.sql'));
    const rows = await migrationRows(old.url);
    expect(rows).toEqual([expect.objectContaining({ migration_name: BASELINE_MIGRATION, checksum: crypto.createHash('sha256').update(sql).digest('hex'), rolled_back_at: null })]);
    expect(rows[0]!.finished_at).toBeInstanceOf(Date);
    expect((await migrationRows(fresh.url)).map(({ migration_name, checksum }) => ({ migration_name, checksum })))
      .toEqual(rows.map(({ migration_name, checksum }) => ({ migration_name, checksum })));
    expect(await repeatableRows(old.url)).toEqual(await repeatableRows(fresh.url));

    // Nothing more to do the next time, and the triggers keep the read model as before.
    log.length = 0;
    expect(await migrate(old.url, (message) => log.push(message))).toEqual([]);
    expect(log).toEqual([]);
    await query(old.url, `UPDATE products SET name = 'Meadow Dress' WHERE id = 1`);
    expect(await query(old.url, 'SELECT name, name_key FROM product_browse WHERE product_id = 1')).toEqual([{ name: 'Meadow Dress', name_key: 'meadow dress' }]);
  });

  it('is refused, unchanged, when it has only part of the replaced history', async () => {
    const partial = await migratedByPartOfTheHistory(1);
    const before = await migrationRows(partial.url);
    const run = migrate(partial.url);
    await expect(run).rejects.toBeInstanceOf(MigrationError);
    await expect(run).rejects.toThrow(`the database was migrated by the 29 migrations that ${BASELINE_MIGRATION} replaced, but lacks 1 of them (20261208000000_search_name_pairs)`);
    expect(await migrationRows(partial.url)).toEqual(before);
  });

  it('is recognised by every migration of the history with the checksum of the file kept here', () => {
    expect(readMigrations(SUPERSEDED_DIR).map(({ name, checksum }) => [name, checksum])).toEqual(SUPERSEDED_MIGRATIONS);
    const recorded = new Map(SUPERSEDED_MIGRATIONS.map(([name, checksum]) => [name, checksum]));
    expect(supersededHistory(new Map())).toEqual({ kind: 'none' });
    expect(supersededHistory(recorded)).toEqual({ kind: 'complete', names: SUPERSEDED_MIGRATIONS.map(([name]) => name) });
    recorded.set('20261125100000_browse', 'edited');
    expect(supersededHistory(recorded)).toMatchObject({ kind: 'incomplete', problem: expect.stringContaining('ran 1 of them from other files than the history\'s last ones (20261125100000_browse)') });
  });
});

// A comparison that can never fail proves nothing: the snapshot sees what the
// drift checker (which reads schema.prisma's terms) does not.
describe('the schema snapshot', () => {
  it('names the parts where two databases differ: column order, index options, sequence ownership', async () => {
    const database = await emptyDatabase();
    await migrate(database.url);
    const before = await schemaSnapshot(database.url);
    await query(database.url, `
      ALTER TABLE legacy_sync_products DROP COLUMN hash;
      ALTER TABLE legacy_sync_products ADD COLUMN hash TEXT NOT NULL;
      ALTER INDEX product_browse_match_a_search_idx SET (fastupdate = on);
      ALTER SEQUENCE product_versions OWNED BY products.version;`);
    const after = await schemaSnapshot(database.url);
    expect(Object.keys(before).filter((part) => JSON.stringify(before[part]) !== JSON.stringify(after[part]))).toEqual(['columns', 'indexes', 'sequences']);
  });
});
