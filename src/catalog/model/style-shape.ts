// The shape of a style as every read path has it, declared once: each field of
// a style, of its photos and of its skus, with the column it comes from. The
// keyed style, photo and sku reads (queries.ts) select exactly these; the
// Style, Photo and Sku types (types.ts) are checked against them at compile
// time; refresh_product_style_documents (prisma/functions) and the GraphQL
// schema are checked against them by test/catalog/style-shape.test.ts.
//
// Adding a field to Style: a column here, the field in types.ts (tsc insists),
// the field in prisma/functions/refresh_product_style_documents.sql (the test insists), and
// the field in schema/styles.graphql (the test insists; then npm run codegen).
import type { Photo, Sku, Style } from './types.ts';

/** Style field → styles column. */
export const STYLE_FIELDS = {
  id: 'id',
  productId: 'product_id',
  name: 'name',
  salePrice: 'sale_price',
  originalPrice: 'original_price',
  isDefault: 'is_default',
} as const;

/** Photo field → photos column. */
export const PHOTO_FIELDS = { url: 'url', thumbnailUrl: 'thumbnail_url' } as const;

/** Sku field → skus column. */
export const SKU_FIELDS = { id: 'id', size: 'size', quantity: 'quantity' } as const;

/** The nested lists a style document carries besides its own fields. */
export const STYLE_LISTS = { photos: PHOTO_FIELDS, skus: SKU_FIELDS } as const;

/** `alias.column AS "field", …` for a SELECT list. */
export function selectList(fields: Record<string, string>, alias = ''): string {
  return Object.entries(fields).map(([field, column]) => (field === column ? `${alias}${column}` : `${alias}${column} AS "${field}"`)).join(', ');
}

// Compile-time: the types have exactly these fields (a field added to one and
// not the other fails `tsc`).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesMatch: [
  Same<keyof typeof STYLE_FIELDS, Exclude<keyof Style, keyof typeof STYLE_LISTS>>,
  Same<keyof typeof PHOTO_FIELDS, keyof Photo>,
  Same<keyof typeof SKU_FIELDS, keyof Sku>,
] = [true, true, true];
void typesMatch;
