// Every read of the catalogue: keyed queries that take a batch of ids and
// return the rows for all of them in one statement. Loaders batch into these;
// nothing else reads the catalogue tables.
//
// Reads use plain `pg` with named prepared statements rather than Prisma: on
// this hot path Prisma costs about 200 µs of CPU per query against 45 µs for
// `pg`, and Postgres spends longer planning the styles query than running it,
// so each statement is parsed and planned once per connection. Keys go in as
// one array parameter (`= ANY($1)`), so one prepared statement serves every
// batch size and no batch can approach the bind-parameter limit. Writes use
// Prisma (src/catalog/service.ts). Which server answers (the primary or a read
// replica) is up to `Reads` (src/db/reads.ts).
import type pg from 'pg';
import type { Reads } from '../db/reads.ts';
import type { Feature, PhotoRow, Product, Related, SkuRow, Style } from './types.ts';

export type { Feature, Photo, PhotoRow, Product, Related, Sku, SkuRow, Style } from './types.ts';

const productColumns = (table = '') =>
  `${table}id, ${table}name, ${table}slogan, ${table}description, ${table}category, ${table}default_price AS "defaultPrice", ${table}created_at AS "createdAt", ${table}updated_at AS "updatedAt"`;
const PRODUCT_COLUMNS = productColumns();
const STYLE_COLUMNS = `s.id, s.product_id AS "productId", s.name, s.sale_price AS "salePrice", s.original_price AS "originalPrice", s.is_default AS "isDefault"`;

const STATEMENTS = {
  productsByIds: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id = ANY($1::int[])`,
  featuresByProductIds: `SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1::int[]) ORDER BY id`,
  stylesByProductIds: `SELECT ${STYLE_COLUMNS} FROM styles s WHERE s.product_id = ANY($1::int[]) ORDER BY s.id`,
  // Styles with their photos and skus, from the per-product read model
  // (product_style_documents, kept in sync by triggers; see its migration).
  styleDocumentsByProductIds: `SELECT product_id AS "productId", styles FROM product_style_documents WHERE product_id = ANY($1::int[])`,
  // A product page in one round trip: the product, its styles, their photos and skus.
  productsWithStylesByIds: `
    SELECT ${productColumns('p.')}, coalesce(d.styles, '[]'::json) AS styles
    FROM products p LEFT JOIN product_style_documents d ON d.product_id = p.id
    WHERE p.id = ANY($1::int[])`,
  photosByStyleIds: `SELECT style_id AS "styleId", url, thumbnail_url AS "thumbnailUrl" FROM photos WHERE style_id = ANY($1::int[]) ORDER BY id`,
  skusByStyleIds: `SELECT style_id AS "styleId", id, size, quantity FROM skus WHERE style_id = ANY($1::int[]) ORDER BY id`,
  relatedByProductIds: `SELECT current_product_id AS "currentProductId", related_product_id AS "relatedProductId" FROM related WHERE current_product_id = ANY($1::int[]) ORDER BY id`,
  // Legacy pages seek from an anchor id (see pages.ts), so OFFSET stays below the anchor spacing.
  productPageFrom: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id >= $1 ORDER BY id OFFSET $2 LIMIT $3`,
  // Every ANCHOR_SPACING-th product id, in order: an index-only scan of the primary key.
  pageAnchors: `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS position FROM products) ranked WHERE position % $1 = 0 ORDER BY id`,
  productsAfter: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id > $1 ORDER BY id LIMIT $2`,
} as const;

type StatementName = keyof typeof STATEMENTS;

export class CatalogQueries {
  private readonly reads: Reads;
  constructor(reads: Reads) {
    this.reads = reads;
  }

  private run<T extends pg.QueryResultRow>(name: StatementName, values: unknown[]): Promise<T[]> {
    return this.reads.run(async (client) => (await client.query<T>({ name, text: STATEMENTS[name], values })).rows);
  }

  productsByIds(ids: readonly number[]): Promise<Product[]> {
    return this.run('productsByIds', [ids]);
  }

  productsWithStylesByIds(ids: readonly number[]): Promise<(Product & Required<Pick<Product, 'styles'>>)[]> {
    return this.run('productsWithStylesByIds', [ids]);
  }

  featuresByProductIds(ids: readonly number[]): Promise<Feature[]> {
    return this.run('featuresByProductIds', [ids]);
  }

  stylesByProductIds(ids: readonly number[]): Promise<Style[]> {
    return this.run('stylesByProductIds', [ids]);
  }

  /** Each product's styles with photos and skus embedded; products without styles have no row. */
  styleDocumentsByProductIds(ids: readonly number[]): Promise<{ productId: number; styles: Style[] }[]> {
    return this.run('styleDocumentsByProductIds', [ids]);
  }

  photosByStyleIds(ids: readonly number[]): Promise<PhotoRow[]> {
    return this.run('photosByStyleIds', [ids]);
  }

  skusByStyleIds(ids: readonly number[]): Promise<SkuRow[]> {
    return this.run('skusByStyleIds', [ids]);
  }

  relatedByProductIds(ids: readonly number[]): Promise<Related[]> {
    return this.run('relatedByProductIds', [ids]);
  }

  /** `count` products in id order, skipping `skip` from the first id >= `fromId`. */
  productPageFrom(fromId: number, skip: number, count: number): Promise<Product[]> {
    return this.run('productPageFrom', [fromId, skip, count]);
  }

  /** The id at every `spacing`-th position of the catalogue in id order. */
  async pageAnchors(spacing: number): Promise<number[]> {
    return (await this.run<{ id: number }>('pageAnchors', [spacing])).map((row) => row.id);
  }

  /** Keyset pagination: `first` products with an id above `afterId`. */
  productsAfter(afterId: number, first: number): Promise<Product[]> {
    return this.run('productsAfter', [afterId, first]);
  }
}
