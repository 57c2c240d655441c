// The SQL of sidecar mode's one write (CatalogService.applySourceProduct):
// a product as the legacy service shows it replaces the local copy, keeping
// the legacy ids of the product, its styles and its skus. Run in one
// transaction after lockProduct (write-statements.ts), like every write.
import { notifyOne } from '../../cache/change-feed.ts';
import type { Statement } from '../../db/writes/transaction.ts';
import { productColumns } from '../reads/queries.ts';

const statement = (name: string, text: string): Statement => ({ name: `source_${name}`, text });

/** The hash the sync last stored for product $1 and the version it left (none: never applied). */
export const SOURCE_HASH = statement('hash', 'SELECT hash, version::text AS version FROM legacy_sync_products WHERE product_id = $1');

/**
 * Product $1 as the legacy routes would show it, from the tables: for a
 * product the sync has no hash of yet (a copy from data:load), so that one
 * already equal is only verified, not written again.
 */
export const LOCAL_SOURCE_VIEW = statement('local_view', `
  SELECT p.name, p.slogan, p.description, p.category, p.default_price::text AS "defaultPrice", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
    (SELECT coalesce(json_agg(json_build_object('feature', f.feature, 'value', f.value) ORDER BY f.id), '[]'::json) FROM features f WHERE f.product_id = p.id) AS features,
    (SELECT d.styles FROM product_style_documents d WHERE d.product_id = p.id) AS styles,
    (SELECT coalesce(json_agg(r.related_product_id ORDER BY r.id), '[]'::json) FROM related r WHERE r.current_product_id = p.id) AS related
  FROM products p WHERE p.id = $1`);

/** Product $1 re-verified unchanged: only the time moves. */
export const TOUCH_VERIFIED = statement('touch_verified', 'UPDATE legacy_sync_products SET verified_at = now() WHERE product_id = $1');

/** Stores hash $2 of product $1, at its current version, as verified now. */
export const STORE_HASH = statement('store_hash', `
  INSERT INTO legacy_sync_products (product_id, hash, version, verified_at) SELECT $1, $2, version, now() FROM products WHERE id = $1
  ON CONFLICT (product_id) DO UPDATE SET hash = EXCLUDED.hash, version = EXCLUDED.version, verified_at = EXCLUDED.verified_at`);

export const FORGET_HASH = statement('forget_hash', 'DELETE FROM legacy_sync_products WHERE product_id = $1');

/**
 * Inserts or replaces product $1 ($2 name, $3 slogan, $4 description, $5
 * category, $6 price, $7 created_at, $8 updated_at) with a new version, and
 * its features ($9, a JSON array of {feature, value}, in order). Announces the
 * change ($10: whether it existed: 'updated', else 'created').
 */
export const UPSERT_SOURCE_PRODUCT = statement('upsert_product', `
  WITH p AS (
    INSERT INTO products (id, name, slogan, description, category, default_price, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6::numeric, $7::timestamptz, $8::timestamptz)
    ON CONFLICT (id) DO UPDATE SET
      name = EXCLUDED.name, slogan = EXCLUDED.slogan, description = EXCLUDED.description, category = EXCLUDED.category,
      default_price = EXCLUDED.default_price, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
      version = nextval('product_versions')
    RETURNING *
  ), gone AS (
    DELETE FROM features WHERE product_id = $1
  ), added AS (
    INSERT INTO features (product_id, feature, value)
    SELECT $1, f.feature, f.value
    FROM ROWS FROM (jsonb_to_recordset($9::jsonb) AS (feature text, value text)) WITH ORDINALITY AS f(feature, value, n)
    ORDER BY f.n
  )
  SELECT ${productColumns('p.')}, CASE WHEN $10::boolean THEN ${notifyOne('p.id', 'updated')} ELSE ${notifyOne('p.id', 'created')} END AS announced FROM p`);

/**
 * Replaces the styles of product $1 by $2 (JSON array of {id, name,
 * originalPrice, salePrice, isDefault}), keeping their legacy ids; a style or
 * sku id the legacy service now shows elsewhere moves here.
 */
/**
 * Other products that hold a style ($2, JSON array of {id}) or a sku ($3,
 * JSON array of {id}) of product $1's snapshot: the legacy service moved them.
 * Those products change too: a new version, and their stored hash forgotten
 * (the sync writes them whole at their next check). Returns their ids.
 */
export const MOVED_FROM_OTHERS = statement('moved_from_others', `
  WITH others AS (
    SELECT DISTINCT s.product_id AS id FROM styles s
    WHERE s.product_id <> $1 AND (s.id IN (SELECT (j->>'id')::int FROM jsonb_array_elements($2::jsonb) j)
      OR s.id IN (SELECT k.style_id FROM skus k WHERE k.id IN (SELECT (j->>'id')::int FROM jsonb_array_elements($3::jsonb) j)))
  ), bumped AS (
    UPDATE products SET version = nextval('product_versions') WHERE id IN (SELECT id FROM others) RETURNING id
  ), forgotten AS (
    DELETE FROM legacy_sync_products WHERE product_id IN (SELECT id FROM others)
  )
  SELECT id FROM bumped`);
export const DELETE_SOURCE_STYLES = statement('delete_styles', `
  DELETE FROM styles WHERE product_id = $1 OR id IN (SELECT (s->>'id')::int FROM jsonb_array_elements($2::jsonb) s)`);
export const DELETE_SOURCE_SKUS = statement('delete_skus', `
  DELETE FROM skus WHERE id IN (SELECT (k->>'id')::int FROM jsonb_array_elements($1::jsonb) k)`);
export const INSERT_SOURCE_STYLES = statement('insert_styles', `
  INSERT INTO styles (id, product_id, name, original_price, sale_price, is_default)
  SELECT (s->>'id')::int, $1, s->>'name', (s->>'originalPrice')::numeric, (s->>'salePrice')::numeric, (s->>'isDefault')::boolean
  FROM jsonb_array_elements($2::jsonb) s`);
/** Photos $1: JSON array of {styleId, url, thumbnailUrl}, in order (ids are new: the legacy service shows none). */
export const INSERT_SOURCE_PHOTOS = statement('insert_photos', `
  INSERT INTO photos (style_id, url, thumbnail_url)
  SELECT (p->>'styleId')::int, p->>'url', p->>'thumbnailUrl'
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(p, n) ORDER BY x.n`);
/** Skus $1: JSON array of {id, styleId, size, quantity}. */
export const INSERT_SOURCE_SKUS = statement('insert_skus', `
  INSERT INTO skus (id, style_id, size, quantity)
  SELECT (k->>'id')::int, (k->>'styleId')::int, k->>'size', (k->>'quantity')::int
  FROM jsonb_array_elements($1::jsonb) k`);

/**
 * Replaces product $1's related rows by the ids $2 (in order, duplicates
 * kept) that exist here; returns the ids that do not (yet).
 */
export const REPLACE_SOURCE_RELATED = statement('replace_related', `
  WITH gone AS (
    DELETE FROM related WHERE current_product_id = $1
  ), wanted AS (
    SELECT r.id, r.n, EXISTS (SELECT 1 FROM products p WHERE p.id = r.id) AS present
    FROM unnest($2::int[]) WITH ORDINALITY AS r(id, n)
  ), added AS (
    INSERT INTO related (current_product_id, related_product_id)
    SELECT $1, id FROM wanted WHERE present ORDER BY n
  )
  SELECT id FROM wanted WHERE NOT present`);
