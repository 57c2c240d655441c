// The product_detail_documents read model: after a load and after any change
// to features or related rows (however it is made), every product's features
// and related ids equal what the tables say, and the reads built on it (the
// REST product, the GraphQL product page) show the change at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, type TestClient, useTestCatalogue } from '../support/catalogue-app.ts';
import type { Feature } from '../../src/catalog/model/types.ts';

const catalogue = useTestCatalogue();
let client: TestClient;
beforeAll(async () => { client = await createTestClient(catalogue.db.url); });
afterAll(async () => { await client?.close(); });

interface Details {
  features: Feature[];
  relatedIds: number[];
}

/** What the tables say, assembled here independently of the SQL function; products with neither are absent. */
async function expectedDetails(productIds: number[]): Promise<Map<number, Details>> {
  const db = catalogue.direct;
  const features = await db.rows(
    'SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1) ORDER BY id', [productIds]) as unknown as Feature[];
  const related = await db.rows<{ current_product_id: number; related_product_id: number }>(
    'SELECT current_product_id, related_product_id FROM related WHERE current_product_id = ANY($1) ORDER BY id', [productIds]);
  const details = new Map<number, Details>();
  const of = (id: number) => details.get(id) ?? details.set(id, { features: [], relatedIds: [] }).get(id)!;
  for (const f of features) of(f.productId).features.push(f);
  for (const r of related) of(r.current_product_id).relatedIds.push(r.related_product_id);
  return details;
}

async function storedDetails(productIds: number[]): Promise<Map<number, Details>> {
  const rows = await catalogue.direct.rows<{ product_id: number; features: Feature[]; related_ids: number[] }>(
    'SELECT product_id, features, related_ids FROM product_detail_documents WHERE product_id = ANY($1)', [productIds]);
  return new Map(rows.map((row) => [row.product_id, { features: row.features, relatedIds: row.related_ids }]));
}

async function expectInSync(productIds: number[]): Promise<void> {
  expect(await storedDetails(productIds)).toEqual(await expectedDetails(productIds));
}

async function pageOf(id: number): Promise<{ features: { feature: string; value: string | null }[]; related: string[] }> {
  const response = await client.app.inject({
    method: 'POST', url: '/graphql',
    payload: { query: 'query Page($id: ID!) { product(id: $id) { id features { feature value } related: relatedIds } }', variables: { id: String(id) } },
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: { product: { features: { feature: string; value: string | null }[]; related: string[] } } }).data.product;
}

describe('product_detail_documents', () => {
  it('holds the features and related ids of every product that has any after a load, equal to the tables', async () => {
    const ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id')).map((r) => r.id);
    const stored = await storedDetails(ids);
    expect(stored.size).toBeGreaterThan(100);
    await expectInSync(ids);
    // Duplicate related rows are kept, in row order, as the legacy route shows them.
    const { n } = await catalogue.direct.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM product_detail_documents WHERE cardinality(related_ids) > 0');
    expect(n).toBeGreaterThan(0);
  });

  it('follows inserts, updates and deletes of features and related rows made with plain SQL, and the reads show them', async () => {
    const db = catalogue.direct;
    const [a, b] = (await db.rows<{ product_id: number }>(
      'SELECT product_id FROM features GROUP BY product_id HAVING count(*) >= 2 ORDER BY product_id LIMIT 2')).map((r) => r.product_id) as [number, number];
    await db.rows(`INSERT INTO features (product_id, feature, value) VALUES ($1, 'Trigger', 'Teal'), ($1, 'Lining', NULL)`, [a]);
    await db.rows('INSERT INTO related (current_product_id, related_product_id) VALUES ($1, $2), ($1, $2)', [a, b]);
    await expectInSync([a, b]);
    const page = await pageOf(a);
    expect(page.features.slice(-2)).toEqual([{ feature: 'Trigger', value: 'Teal' }, { feature: 'Lining', value: null }]);
    expect(page.related.slice(-2)).toEqual([String(b), String(b)]);

    await db.rows(`UPDATE features SET value = 'Mauve' WHERE product_id = $1 AND feature = 'Trigger'`, [a]);
    await db.rows('UPDATE related SET related_product_id = $1 WHERE current_product_id = $1 AND related_product_id = $2', [a, b]);
    await expectInSync([a, b]);
    const rest = await client.app.inject({ method: 'GET', url: `/products/${a}` });
    expect((rest.json() as { features: { feature: string; value: string | null }[] }).features).toContainEqual({ feature: 'Trigger', value: 'Mauve' });

    // A feature moved to another product leaves one row and joins the other.
    await db.rows(`UPDATE features SET product_id = $2 WHERE product_id = $1 AND feature = 'Lining'`, [a, b]);
    await expectInSync([a, b]);

    // A product whose last feature and related row go has no row (the API shows []).
    await db.rows('DELETE FROM features WHERE product_id = $1', [a]);
    await db.rows('DELETE FROM related WHERE current_product_id = $1', [a]);
    expect((await storedDetails([a])).has(a)).toBe(false);
    expect(await pageOf(a)).toMatchObject({ features: [], related: [] });
  });

  it('disappears with its product, and a product pointing at it loses that related id', async () => {
    const db = catalogue.direct;
    const { current_product_id: from, related_product_id: gone } = await db.one<{ current_product_id: number; related_product_id: number }>(
      'SELECT current_product_id, related_product_id FROM related WHERE current_product_id <> related_product_id ORDER BY id DESC LIMIT 1');
    await db.rows('DELETE FROM products WHERE id = $1', [gone]);
    expect((await storedDetails([gone])).has(gone)).toBe(false);
    await expectInSync([from]);
    expect((await storedDetails([from])).get(from)?.relatedIds ?? []).not.toContain(gone);
  });
});
