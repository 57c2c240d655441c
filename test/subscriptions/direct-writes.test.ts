// Writes the API never saw (SQL by hand, any other client) are announced on
// the change feed by the tables' triggers (prisma/functions/*_notify.sql),
// for the product each row belongs to;
// a statement touching more products than fit one NOTIFY says "anything may
// have changed". On a catalogue the real loader built (it adds the triggers
// after its rows, with the others).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed, type FeedChange } from '../../src/cache/change-feed.ts';
import { createTestCatalogue, type TestCatalogue } from '../support/catalogue-app.ts';

describe('change feed triggers: SQL by hand', () => {
  let catalogue: TestCatalogue;
  let feed: ChangeFeed;
  const heard: { ids: number[]; change: FeedChange }[] = [];
  let everything = 0;

  beforeAll(async () => {
    catalogue = await createTestCatalogue();
    feed = new ChangeFeed({ url: catalogue.db.url, connectTimeoutMs: 2_000, warn: () => {} });
    feed.subscribe({ changed: (ids, change) => heard.push({ ids, change }), everything: () => { everything++; }, replaced: () => { everything++; } });
    await feed.start();
  });
  afterAll(async () => {
    await feed?.close();
    await catalogue?.dispose();
  });

  /** Runs `sql` and returns what the feed heard for it (it hears its own marker write last). */
  async function heardFor(sql: string, params: unknown[] = []): Promise<{ ids: number[]; change: FeedChange }[]> {
    heard.length = 0;
    everything = 0;
    await catalogue.direct.rows(sql, params);
    // A marker: the feed hears commits in order, so once it has this one it has heard `sql`'s.
    await catalogue.direct.rows(`SELECT pg_notify('catalogue_changes', '{"change":"updated","ids":[0]}')`);
    const started = Date.now();
    while (!heard.some((h) => h.ids.includes(0)) && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 5));
    return heard.filter((h) => !h.ids.includes(0));
  }

  it('announces each table\'s rows by their product', async () => {
    const { id: productId } = await catalogue.direct.one<{ id: number }>('SELECT min(product_id) AS id FROM styles');
    const { id: styleId } = await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM styles WHERE product_id = $1', [productId]);
    expect(await heardFor('UPDATE products SET name = name || \'!\' WHERE id = $1', [productId])).toEqual([{ ids: [productId], change: 'updated' }]);
    expect(await heardFor('INSERT INTO features (product_id, feature, value) VALUES ($1, \'Hand\', \'made\')', [productId])).toEqual([{ ids: [productId], change: 'updated' }]);
    expect(await heardFor('UPDATE skus SET quantity = quantity + 1 WHERE style_id = $1', [styleId])).toEqual([{ ids: [productId], change: 'updated' }]);
    expect(await heardFor('DELETE FROM photos WHERE id = (SELECT min(id) FROM photos WHERE style_id = $1)', [styleId])).toEqual([{ ids: [productId], change: 'updated' }]);
    expect(await heardFor('UPDATE styles SET sale_price = 1 WHERE id = $1', [styleId])).toEqual([{ ids: [productId], change: 'updated' }]);
    expect(await heardFor('INSERT INTO related (current_product_id, related_product_id) VALUES ($1, $1)', [productId])).toEqual([{ ids: [productId], change: 'updated' }]);
  });

  it('says "created" and "deleted" for products, with the products whose rows went with them', async () => {
    const created = await heardFor(`INSERT INTO products (name, slogan, description, category, default_price) VALUES ('Live', 's', 'd', 'c', 10)`);
    expect(created).toHaveLength(1);
    expect(created[0]!.change).toBe('created');
    const id = created[0]!.ids[0]!;
    await catalogue.direct.rows('INSERT INTO features (product_id, feature, value) VALUES ($1, \'Fabric\', \'Wool\')', [id]);
    const deleted = await heardFor('DELETE FROM products WHERE id = $1', [id]);
    expect(deleted).toContainEqual({ ids: [id], change: 'deleted' });
  });

  it('one statement over thousands of products: anything may have changed', async () => {
    const insert = `INSERT INTO products (name, slogan, description, category, default_price)
      SELECT 'Bulk ' || i, 's', 'd', 'c', 10 FROM generate_series(1, 2000) AS i`;
    expect(await heardFor(insert)).toEqual([]);
    expect(everything).toBe(1);
    expect(await heardFor(`DELETE FROM products WHERE name LIKE 'Bulk %'`)).toEqual([]);
    expect(everything).toBe(1);
  });

  it('a rolled-back write announces nothing', async () => {
    const result = await heardFor(`DO $$ BEGIN UPDATE products SET name = 'x' WHERE id = 1; RAISE EXCEPTION 'undo'; EXCEPTION WHEN OTHERS THEN NULL; END $$`);
    expect(result).toEqual([]);
  });
});
