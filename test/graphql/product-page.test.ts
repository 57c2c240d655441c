// The hot path: one product with its styles, photos and skus (a product page)
// is a single SQL statement, with exactly the values the tables hold.
import { describe, expect, it } from 'vitest';
import { ProductDetailPageDocument, ProductPageWithRelatedIdsDocument, ProductStylesDocument } from '../../src/generated/graphql/operations/graphql.ts';
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

  it('the whole page (features, styles with media, related ids) is one statement, the same data field by field', async () => {
    const [row] = await catalogue.direct.rows<{ id: number }>(
      `SELECT p.id FROM products p WHERE EXISTS (SELECT 1 FROM features f WHERE f.product_id = p.id)
         AND (SELECT count(*) FROM related r WHERE r.current_product_id = p.id) >= 2 AND EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id)
       ORDER BY p.id LIMIT 1`);
    const id = String(row!.id);
    const page = await client.post(ProductPageWithRelatedIdsDocument, { id });
    expect(page.statements).toBe(1);
    const product = (page.body as { data: { product: Record<string, unknown> } }).data.product;
    // Each part asked for alone goes through its own loader (its own statement): the same values.
    const alone = async (fields: string) => (await client.post(`query($id: ID!) { product(id: $id) { ${fields} } }`, { id })).body as { data: { product: Record<string, unknown> } };
    expect((await alone('features { feature value }')).data.product.features).toEqual(product.features);
    expect((await alone('relatedIds')).data.product.relatedIds).toEqual(product.relatedIds);
    const relatedIds = await catalogue.direct.rows<{ product: string }>('SELECT related_product_id::text AS product FROM related WHERE current_product_id = $1 ORDER BY id', [row!.id]);
    expect(product.relatedIds).toEqual(relatedIds.map((r) => r.product));
    expect((product.features as unknown[]).length).toBeGreaterThan(0);
    const styles = await client.post(ProductStylesDocument, { id });
    expect((styles.body as { data: { product: { styles: unknown[] } } }).data.product.styles.map((s) => (s as { id: string }).id))
      .toEqual((product.styles as { id: string }[]).map((s) => s.id));
  });

  it('the page with related products as cards is two statements: the page, then the related products with their styles', async () => {
    const [row] = await catalogue.direct.rows<{ id: number }>(
      'SELECT current_product_id AS id FROM related GROUP BY current_product_id HAVING count(*) >= 2 ORDER BY current_product_id LIMIT 1');
    const response = await client.post(ProductDetailPageDocument, { id: String(row!.id) });
    expect(response.statements).toBe(2);
    const cards = (response.body as { data: { product: { related: { id: string; defaultStyle: unknown }[] } } }).data.product.related;
    expect(cards.length).toBeGreaterThan(0);
    // The same cards as the related products asked for one by one.
    for (const card of cards.slice(0, 3)) {
      const alone = await client.post('query($id: ID!) { product(id: $id) { defaultStyle { id originalPrice salePrice photos { thumbnailUrl } } } }', { id: card.id });
      expect((alone.body as { data: { product: { defaultStyle: unknown } } }).data.product.defaultStyle).toEqual(card.defaultStyle);
    }
  });

  it('an unknown product is null, still one statement', async () => {
    const response = await client.post(ProductStylesDocument, { id: '987654' });
    expect((response.body as { data: { product: unknown } }).data.product).toBeNull();
    expect(response.statements).toBe(1);
  });
});
