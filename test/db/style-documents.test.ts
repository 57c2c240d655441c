// The product_style_documents read model: after a load and after any change to
// styles, photos or skus (however it is made), every product's document equals
// what the normalized tables say.
import { describe, expect, it } from 'vitest';
import { useTestCatalogue } from '../support/catalogue-app.ts';
import { PHOTO_FIELDS, selectList, SKU_FIELDS, STYLE_FIELDS } from '../../src/catalog/model/style-shape.ts';
import type { Photo, Sku, Style } from '../../src/catalog/model/types.ts';

const catalogue = useTestCatalogue();

/** A style as the document holds it (the shape declared in src/catalog/model/style-shape.ts). */
type StyleDocument = Required<Style>;

/** The documents as assembled here from the tables, independently of the SQL function. */
async function expectedDocuments(productIds: number[]): Promise<Map<number, StyleDocument[]>> {
  const db = catalogue.direct;
  // Every declared field, from its column (test/catalog/style-shape.test.ts checks the declaration against the function).
  const styles = await db.rows(
    `SELECT ${selectList(STYLE_FIELDS)} FROM styles WHERE product_id = ANY($1) ORDER BY id`, [productIds]) as unknown as Style[];
  const styleIds = styles.map((s) => s.id);
  const photos = await db.rows(
    `SELECT style_id, ${selectList(PHOTO_FIELDS)} FROM photos WHERE style_id = ANY($1) ORDER BY id`, [styleIds]) as unknown as (Photo & { style_id: number })[];
  const skus = await db.rows(
    `SELECT style_id, ${selectList(SKU_FIELDS)} FROM skus WHERE style_id = ANY($1) ORDER BY id`, [styleIds]) as unknown as (Sku & { style_id: number })[];
  const documents = new Map<number, StyleDocument[]>();
  for (const s of styles) {
    const list = documents.get(s.productId) ?? [];
    list.push({
      ...s,
      photos: photos.filter((p) => p.style_id === s.id).map(({ style_id: _styleId, ...photo }) => photo),
      skus: skus.filter((k) => k.style_id === s.id).map(({ style_id: _styleId, ...sku }) => sku),
    });
    documents.set(s.productId, list);
  }
  return documents;
}

async function storedDocuments(productIds: number[]): Promise<Map<number, StyleDocument[]>> {
  const rows = await catalogue.direct.rows<{ product_id: number; styles: StyleDocument[] }>(
    'SELECT product_id, styles FROM product_style_documents WHERE product_id = ANY($1)', [productIds]);
  return new Map(rows.map((row) => [row.product_id, row.styles]));
}

async function expectInSync(productIds: number[]): Promise<void> {
  expect(await storedDocuments(productIds)).toEqual(await expectedDocuments(productIds));
}

describe('product_style_documents', () => {
  it('holds a document for every product with styles after a load, equal to the tables', async () => {
    const ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id')).map((r) => r.id);
    const stored = await storedDocuments(ids);
    const { n } = await catalogue.direct.one<{ n: string }>('SELECT count(DISTINCT product_id) AS n FROM styles');
    expect(stored.size).toBe(Number(n));
    expect(stored.size).toBeGreaterThan(100);
    await expectInSync(ids);
    // Prices keep two decimals as text; a null sale price stays null.
    const all = [...stored.values()].flat();
    expect(all.every((s) => /^\d+\.\d\d$/.test(s.originalPrice))).toBe(true);
    expect(all.some((s) => s.salePrice === null)).toBe(true);
  });

  it('follows inserts, updates and deletes of styles, photos and skus made with plain SQL', async () => {
    const db = catalogue.direct;
    const [a, b] = (await db.rows<{ product_id: number }>(
      'SELECT product_id FROM styles GROUP BY product_id HAVING count(*) >= 2 ORDER BY product_id LIMIT 2')).map((r) => r.product_id) as [number, number];
    const { id: style } = await db.one<{ id: number }>(
      `INSERT INTO styles (product_id, name, sale_price, original_price, is_default) VALUES ($1, 'Trigger Teal', 9.50, 12.00, false) RETURNING id`, [a]);
    await db.rows(`INSERT INTO photos (style_id, url, thumbnail_url) VALUES ($1, 'https://example.com/1.jpg', 'https://example.com/1t.jpg'), ($1, 'https://example.com/2.jpg', 'https://example.com/2t.jpg')`, [style]);
    await db.rows(`INSERT INTO skus (style_id, size, quantity) VALUES ($1, 'XL', 3), ($1, 'S', 0)`, [style]);
    await expectInSync([a, b]);
    expect((await storedDocuments([a])).get(a)?.find((s) => s.id === style)).toMatchObject({ salePrice: '9.50', originalPrice: '12.00', skus: [{ size: 'XL', quantity: 3 }, { size: 'S', quantity: 0 }] });

    await db.rows('UPDATE skus SET quantity = quantity + 7 WHERE style_id = $1', [style]);
    await db.rows(`DELETE FROM photos WHERE style_id = $1 AND url LIKE '%/1.jpg'`, [style]);
    await expectInSync([a]);

    // A style moved to another product leaves one document and joins the other.
    await db.rows('UPDATE styles SET product_id = $2 WHERE id = $1', [style, b]);
    await expectInSync([a, b]);
    expect((await storedDocuments([b])).get(b)?.some((s) => s.id === style)).toBe(true);

    // A product whose last style goes has no document (the API shows []).
    await db.rows('DELETE FROM styles WHERE product_id = $1', [a]);
    expect((await storedDocuments([a])).has(a)).toBe(false);
  });

  it('disappears with its product', async () => {
    const { product_id: id } = await catalogue.direct.one<{ product_id: number }>('SELECT product_id FROM product_style_documents ORDER BY product_id DESC LIMIT 1');
    await catalogue.direct.rows('DELETE FROM products WHERE id = $1', [id]);
    expect((await storedDocuments([id])).has(id)).toBe(false);
  });
});
