// The drift test: a database built by our hand-written migrations must match
// prisma/schema.prisma exactly, in both directions. When this fails, either
// add a migration for the schema change or fix the schema; each difference
// names the table and column (or index, or foreign key) that disagrees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { findSchemaDrift } from '../support/schema-drift.ts';

describe('migrations vs prisma/schema.prisma', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    // createTestDatabase() runs migrate() on a fresh, empty database.
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('a freshly migrated database matches the schema', async () => {
    expect(await findSchemaDrift(database.url)).toEqual([]);
  });
});

// A drift test that can never fail proves nothing, so break a migrated
// database in several ways and check that each one is reported, by name, and
// that nothing else is.
describe('the drift checker', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('names every difference between the database and the schema', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(`
        ALTER TABLE skus ALTER COLUMN quantity DROP NOT NULL;
        DROP INDEX photos_style_id_idx;
        ALTER TABLE products ADD COLUMN sku_code TEXT;
        ALTER TABLE styles ALTER COLUMN sale_price TYPE NUMERIC(12, 2);
        ALTER TABLE styles ALTER COLUMN is_default SET DEFAULT true;
        ALTER TABLE features ALTER COLUMN created_at DROP DEFAULT;
        ALTER TABLE load_rejects DROP CONSTRAINT load_rejects_run_id_fkey;
        ALTER TABLE load_rejects ADD CONSTRAINT load_rejects_run_id_fkey
          FOREIGN KEY (run_id) REFERENCES load_runs(id) ON DELETE RESTRICT ON UPDATE CASCADE;
        ALTER INDEX related_current_product_id_idx RENAME TO related_current_idx;
        CREATE UNIQUE INDEX products_name_key ON products(name);
        ALTER TABLE load_runs DROP COLUMN summary;
        CREATE TABLE audit_log (id SERIAL PRIMARY KEY);
        ALTER TABLE product_style_documents DROP COLUMN default_style;
        ALTER TABLE product_style_documents ADD COLUMN default_style JSON GENERATED ALWAYS AS (styles -> 0) STORED;
      `);
    } finally {
      await client.end();
    }

    const differences = await findSchemaDrift(database.url);

    // Sorted on both sides: the order is the checker's business, the content is not.
    expect([...differences].sort()).toEqual(
      [
        'skus.quantity: nullability differs (schema: NOT NULL, database: NULL)',
        'photos: index photos_style_id_idx on (style_id) (@@index([styleId])) missing from the database',
        'products.sku_code: column in the database is not in the schema (text)',
        'styles.sale_price: type differs (schema: numeric(10,2), database: numeric(12,2))',
        'styles.is_default: default differs (schema: @default(false), database: true)',
        'features.created_at: default missing from the database (schema: @default(now()))',
        'load_rejects: foreign key load_rejects_run_id_fkey (run_id) -> load_runs(id) ON DELETE differs (schema: Cascade, database: Restrict)',
        'related: index related_current_product_id_idx on (current_product_id) (@@index([currentProductId])) is named related_current_idx in the database',
        'products: unique index products_name_key on (name) in the database is not in the schema',
        'load_runs.summary: column missing from the database (schema: LoadRun.summary Json?)',
        'table audit_log in the database is not in the schema',
        'product_style_documents.default_style: is a generated column in the database ((styles -> 0)); the schema must declare @default(dbgenerated("(styles -> 0)"))',
      ].sort(),
    );
  });
});
