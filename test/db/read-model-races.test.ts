// Two transactions writing skus of one product at once, without the API
// (which locks the product first): each trigger rebuilds the product's browse
// row and style document. Replayed step by step on two connections: the
// second writer's rebuild must wait for the first writer and then see what
// it committed (the products' locks of refresh_product_browse). Before the
// locks, the two skus of one size deleted by two writers at once left the
// size in stock on the browse row: each writer still saw the other's sku, so
// neither changed the row (the second waited for the first's lock on the row,
// then wrote what it had computed before). An update happened to be safe: its
// trigger rebuilds twice (new rows, old rows), the second time with a fresh
// snapshot.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

describe('read models under two writers of one product', () => {
  let first: pg.Client;
  let second: pg.Client;
  let productId: number;
  let skuA: number;
  let skuB: number;

  beforeAll(async () => {
    first = new pg.Client({ connectionString: catalogue.db.url });
    second = new pg.Client({ connectionString: catalogue.db.url });
    await Promise.all([first.connect(), second.connect()]);
    const style = await catalogue.direct.one<{ id: number; product_id: number }>('SELECT id, product_id FROM styles ORDER BY id LIMIT 1');
    productId = style.product_id;
    // Two skus of a size no other sku has, both in stock.
    skuA = (await catalogue.direct.one<{ id: number }>(`INSERT INTO skus (style_id, size, quantity) VALUES ($1, 'Race', 5) RETURNING id`, [style.id])).id;
    skuB = (await catalogue.direct.one<{ id: number }>(`INSERT INTO skus (style_id, size, quantity) VALUES ($1, 'Race', 5) RETURNING id`, [style.id])).id;
  });

  afterAll(async () => {
    await Promise.all([first.end(), second.end()]);
    await catalogue.direct.rows('DELETE FROM skus WHERE id = ANY($1)', [[skuA, skuB]]);
  });

  /** The product's sizes in stock and style document, stored and as the tables say. */
  async function state() {
    return catalogue.direct.one<{ stored: string[]; actual: string[]; document: unknown; rebuilt: unknown }>(`
      SELECT (SELECT sizes FROM product_browse WHERE product_id = $1) AS stored,
        ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id WHERE s.product_id = $1 AND k.quantity > 0 ORDER BY k.size) AS actual,
        (SELECT styles FROM product_style_documents WHERE product_id = $1)::jsonb AS document,
        (SELECT json_agg(s ORDER BY s.id) FROM (SELECT s.id, (SELECT json_agg(json_build_object('id', k.id, 'quantity', k.quantity) ORDER BY k.id) FROM skus k WHERE k.style_id = s.id) AS skus
          FROM styles s WHERE s.product_id = $1) s)::jsonb AS rebuilt`, [productId]);
  }

  it('two writers deleting the two skus of a size at once: the second waits for the first, and the size leaves the browse row and the style document', async () => {
    expect((await state()).stored).toContain('Race');
    await first.query('BEGIN');
    await first.query('DELETE FROM skus WHERE id = $1', [skuA]);
    await second.query('BEGIN');
    let settled = false;
    const blocked = second.query('DELETE FROM skus WHERE id = $1', [skuB]).finally(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false); // waiting for the first writer's lock on the product
    await first.query('COMMIT');
    await blocked;
    await second.query('COMMIT');
    const { stored, actual, document, rebuilt } = await state();
    expect(actual).not.toContain('Race');
    expect(stored).toEqual(actual);
    // The document's skus, by id with their quantities, as the tables have them.
    const quantities = (styles: unknown) => (styles as { id: number; skus: { id: number; quantity: number }[] | null }[])
      .map((s) => ({ id: s.id, skus: (s.skus ?? []).map((k) => ({ id: k.id, quantity: k.quantity })) }));
    expect(quantities(document)).toEqual(quantities(rebuilt));
  });
});
