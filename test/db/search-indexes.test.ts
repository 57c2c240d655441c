// The search indexes take writes straight into their trees (fastupdate = off
// in the baseline migration): with GIN's default
// pending list, every search read the entries of recent writes one by one
// until a vacuum merged them, and searches slowed down after a few hundred
// product updates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

/** The GIN indexes on the catalogue's tables, with their storage options. */
async function ginIndexes() {
  return catalogue.direct.rows<{ name: string; table: string; options: string[] | null }>(`
    SELECT c.relname AS name, t.relname AS table, c.reloptions AS options
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE a.amname = 'gin' AND n.nspname = 'public' ORDER BY 1`);
}

describe('search indexes', () => {
  let productId: number;
  let description: string;

  beforeAll(async () => {
    ({ id: productId, description } = await catalogue.direct.one<{ id: number; description: string }>('SELECT id, description FROM products ORDER BY id LIMIT 1'));
  });

  afterAll(async () => {
    await catalogue.direct.rows('UPDATE products SET description = $2 WHERE id = $1', [productId, description]);
  });

  it('every GIN index of the catalogue has no pending list', async () => {
    const indexes = await ginIndexes();
    expect(indexes.map((index) => index.name)).toContain('product_browse_document_search_idx');
    for (const index of indexes) expect({ name: index.name, options: index.options }).toEqual({ name: index.name, options: ['fastupdate=off'] });
  });

  it('a product update leaves nothing pending: its new words are in the trees at once', async () => {
    await catalogue.direct.rows('UPDATE products SET description = $2 WHERE id = $1', [productId, `${description} zanzibarite quokkaform`]);
    const pending = await catalogue.direct.rows<{ name: string; pages: number }>(`
      SELECT c.relname AS name, gin_clean_pending_list(c.oid::regclass)::int AS pages
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
      WHERE a.amname = 'gin' AND i.indrelid = 'product_browse'::regclass ORDER BY 1`);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.filter((index) => index.pages !== 0)).toEqual([]);
    const found = await catalogue.direct.rows<{ product_id: number }>(
      `SELECT product_id FROM product_browse WHERE document @@ plainto_tsquery('english', 'zanzibarite quokkaform')`);
    expect(found).toEqual([{ product_id: productId }]);
  });
});
