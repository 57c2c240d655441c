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
// Prisma (src/catalog/service.ts).
import type pg from 'pg';
import type { Feature, PhotoRow, Product, Related, SkuRow, Style } from './types.ts';

export type { Feature, Photo, PhotoRow, Product, Related, Sku, SkuRow, Style } from './types.ts';

const PRODUCT_COLUMNS = `id, name, slogan, description, category, default_price AS "defaultPrice", created_at AS "createdAt", updated_at AS "updatedAt"`;
const STYLE_COLUMNS = `s.id, s.product_id AS "productId", s.name, s.sale_price AS "salePrice", s.original_price AS "originalPrice", s.is_default AS "isDefault"`;

const STATEMENTS = {
  productsByIds: `SELECT ${PRODUCT_COLUMNS} FROM products WHERE id = ANY($1::int[])`,
  featuresByProductIds: `SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1::int[]) ORDER BY id`,
  stylesByProductIds: `SELECT ${STYLE_COLUMNS} FROM styles s WHERE s.product_id = ANY($1::int[]) ORDER BY s.id`,
  // Styles with their photos and skus in one round trip: what a product page needs.
  stylesWithMediaByProductIds: `
    SELECT ${STYLE_COLUMNS},
      coalesce((SELECT json_agg(json_build_object('url', p.url, 'thumbnailUrl', p.thumbnail_url) ORDER BY p.id)
                FROM photos p WHERE p.style_id = s.id), '[]'::json) AS photos,
      coalesce((SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
                FROM skus k WHERE k.style_id = s.id), '[]'::json) AS skus
    FROM styles s WHERE s.product_id = ANY($1::int[]) ORDER BY s.id`,
  // A product page in one round trip: the product, its styles, their photos and
  // skus. Prices are cast to text inside the JSON so "140.00" stays "140.00".
  productsWithStylesByIds: `
    SELECT ${PRODUCT_COLUMNS},
      coalesce((SELECT json_agg(json_build_object(
          'id', s.id, 'productId', s.product_id, 'name', s.name,
          'salePrice', s.sale_price::text, 'originalPrice', s.original_price::text, 'isDefault', s.is_default,
          'photos', coalesce((SELECT json_agg(json_build_object('url', ph.url, 'thumbnailUrl', ph.thumbnail_url) ORDER BY ph.id)
                              FROM photos ph WHERE ph.style_id = s.id), '[]'::json),
          'skus', coalesce((SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
                            FROM skus k WHERE k.style_id = s.id), '[]'::json)
        ) ORDER BY s.id) FROM styles s WHERE s.product_id = p.id), '[]'::json) AS styles
    FROM products p WHERE p.id = ANY($1::int[])`,
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
  private readonly pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  private async run<T extends pg.QueryResultRow>(name: StatementName, values: unknown[]): Promise<T[]> {
    // connect() rather than pool.query(): a promise keeps the caller's async
    // context, so the statement is counted for the request that issued it.
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<T>({ name, text: STATEMENTS[name], values });
      client.release();
      return rows;
    } catch (error) {
      // A connection that failed leaves the pool: it may be dead (Postgres
      // restarted), mid-query after a driver timeout, or holding a prepared
      // statement planned for a table that changed. Its replacement prepares
      // each statement again on first use (prepared statements live per connection).
      client.release(error as Error);
      throw error;
    }
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

  stylesWithMediaByProductIds(ids: readonly number[]): Promise<Style[]> {
    return this.run('stylesWithMediaByProductIds', [ids]);
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
