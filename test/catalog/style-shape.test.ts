// The style's shape is declared once (src/catalog/model/style-shape.ts). Everything
// that cannot be derived from it is checked against it here, so a field added
// in one place only fails: the documents refresh_product_style_documents builds
// (prisma/functions), the keyed reads, and the GraphQL types.
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHOTO_FIELDS, SKU_FIELDS, STYLE_FIELDS, STYLE_LISTS } from '../../src/catalog/model/style-shape.ts';
import { readTypeDefs } from '../../src/graphql/schema.ts';
import { CatalogQueries } from '../../src/catalog/reads/queries.ts';
import { connectDatabase, type Database } from '../../src/db/pool/pool.ts';
import { poolReads } from '../../src/db/reads/read-routes.ts';
import { createTestCatalogue, type TestCatalogue } from '../support/catalogue-app.ts';

let catalogue: TestCatalogue;
let database: Database;
beforeAll(async () => {
  catalogue = await createTestCatalogue({ scale: 0.0001 });
  database = connectDatabase(catalogue.db.url, { poolSize: 2 });
});
afterAll(async () => {
  await database?.close();
  await catalogue?.dispose();
});

const sorted = (keys: Iterable<string>) => [...keys].sort();
const STYLE_DOCUMENT_KEYS = sorted([...Object.keys(STYLE_FIELDS), ...Object.keys(STYLE_LISTS)]);

/** A product whose styles have photos and skus. */
async function productWithMedia(): Promise<number> {
  const { id } = await catalogue.direct.one<{ id: number }>(`
    SELECT s.product_id AS id FROM styles s
    WHERE EXISTS (SELECT 1 FROM photos p WHERE p.style_id = s.id) AND EXISTS (SELECT 1 FROM skus k WHERE k.style_id = s.id)
    ORDER BY s.id LIMIT 1`);
  return id;
}

describe('the style shape', () => {
  it('is what refresh_product_style_documents builds (the read model of product pages)', async () => {
    const id = await productWithMedia();
    const { styles } = await catalogue.direct.one<{ styles: Record<string, unknown>[] }>('SELECT styles FROM product_style_documents WHERE product_id = $1', [id]);
    const withMedia = styles.find((style) => (style.photos as unknown[]).length > 0 && (style.skus as unknown[]).length > 0)!;
    for (const style of styles) expect(sorted(Object.keys(style))).toEqual(STYLE_DOCUMENT_KEYS);
    expect(sorted(Object.keys((withMedia.photos as Record<string, unknown>[])[0]!))).toEqual(sorted(Object.keys(PHOTO_FIELDS)));
    expect(sorted(Object.keys((withMedia.skus as Record<string, unknown>[])[0]!))).toEqual(sorted(Object.keys(SKU_FIELDS)));
  });

  it('is what the keyed reads return, and the document agrees with them value for value', async () => {
    const id = await productWithMedia();
    const queries = new CatalogQueries(poolReads(database.pool), database.statements);
    const styles = await queries.stylesByProductIds([id]);
    for (const style of styles) expect(sorted(Object.keys(style))).toEqual(sorted(Object.keys(STYLE_FIELDS)));
    const photos = await queries.photosByStyleIds(styles.map((style) => style.id));
    const skus = await queries.skusByStyleIds(styles.map((style) => style.id));
    expect(sorted(Object.keys(photos[0]!))).toEqual(sorted(['styleId', ...Object.keys(PHOTO_FIELDS)]));
    expect(sorted(Object.keys(skus[0]!))).toEqual(sorted(['styleId', ...Object.keys(SKU_FIELDS)]));
    const [document] = await queries.styleDocumentsByProductIds([id]);
    expect(document!.styles).toEqual(styles.map((style) => ({
      ...style,
      photos: photos.filter((photo) => photo.styleId === style.id).map(({ styleId: _styleId, ...photo }) => photo),
      skus: skus.filter((sku) => sku.styleId === style.id).map(({ styleId: _styleId, ...sku }) => sku),
    })));
  });

  it('is what the GraphQL types expose (a style\'s productId as its product)', () => {
    const schema = buildSchema(readTypeDefs());
    const fields = (type: string) => sorted(Object.keys((schema.getType(type) as GraphQLObjectType).getFields()));
    const graphqlName = (field: string) => (field === 'productId' ? 'product' : field);
    expect(fields('Style')).toEqual(sorted([...Object.keys(STYLE_FIELDS).map(graphqlName), ...Object.keys(STYLE_LISTS)]));
    expect(fields('Photo')).toEqual(sorted(Object.keys(PHOTO_FIELDS)));
    expect(fields('Sku')).toEqual(sorted(Object.keys(SKU_FIELDS)));
  });
});
