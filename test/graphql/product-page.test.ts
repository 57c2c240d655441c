// The hot path: one product with its styles, photos and skus (a product page)
// is a single SQL statement, with exactly the values the tables hold.
import { describe, expect, it } from 'vitest';
import { ProductStylesDocument } from '../../src/generated/graphql/operations/graphql.ts';
import { EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

describe.each(EXECUTORS)('product page with $name', ({ env }) => {
  const client = useTestClient(catalogue, { env });

  it('costs one statement and returns the rows exactly', async () => {
    const [row] = await catalogue.direct.rows<{ id: number }>(
      `SELECT p.id FROM products p WHERE (SELECT count(*) FROM styles s WHERE s.product_id = p.id) >= 2
         AND EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NULL)
         AND EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL) ORDER BY p.id LIMIT 1`);
    const id = String(row!.id);
    const response = await client.post(ProductStylesDocument, { id });
    expect(response.statements).toBe(1);
    const styles = await catalogue.direct.rows<{ id: number; name: string; sale: string | null; original: string; is_default: boolean }>(
      'SELECT id, name, sale_price::text AS sale, original_price::text AS original, is_default FROM styles WHERE product_id = $1 ORDER BY id', [row!.id]);
    const expected = [];
    for (const style of styles) {
      const photos = await catalogue.direct.rows<{ url: string; thumbnail_url: string }>('SELECT url, thumbnail_url FROM photos WHERE style_id = $1 ORDER BY id', [style.id]);
      const skus = await catalogue.direct.rows<{ id: number; size: string; quantity: number }>('SELECT id, size, quantity FROM skus WHERE style_id = $1 ORDER BY id', [style.id]);
      expected.push({
        id: String(style.id), name: style.name, originalPrice: style.original, salePrice: style.sale, isDefault: style.is_default,
        photos: photos.map((p) => ({ url: p.url, thumbnailUrl: p.thumbnail_url })),
        skus: skus.map((k) => ({ id: String(k.id), size: k.size, quantity: k.quantity })),
      });
    }
    expect((response.body as { data: { product: unknown } }).data.product).toEqual({ id, styles: expected });
    expect(expected.some((s) => s.salePrice === null) && expected.some((s) => s.salePrice !== null)).toBe(true);
  });

  it('an unknown product is null, still one statement', async () => {
    const response = await client.post(ProductStylesDocument, { id: '987654' });
    expect((response.body as { data: { product: unknown } }).data.product).toBeNull();
    expect(response.statements).toBe(1);
  });
});
