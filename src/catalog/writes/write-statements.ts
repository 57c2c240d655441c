// The SQL of every catalogue write (src/catalog/writes/service.ts runs them, in
// transactions at READ COMMITTED). Each write first locks the product row it
// changes (`lockProduct`), so concurrent writes of one product queue on that
// lock instead of failing, and then changes everything in one statement: the
// statement starts after the lock is granted, so it sees what the previous
// holder committed (READ COMMITTED takes a new snapshot per statement).
// Features arrive as one JSON array parameter, however many there are.
import { notifyOne } from '../../cache/change-feed.ts';
import type { Statement } from '../../db/writes/transaction.ts';
import { productColumns } from '../reads/queries.ts';

/** A named statement: each connection prepares it once (names are the read statements' own otherwise). */
const statement = (name: string, text: string): Statement => ({ name: `write_${name}`, text });

/** A product's version, followed by its id. */
const VERSION_OF_PRODUCT = 'SELECT version::text AS version FROM products WHERE id =';

/**
 * The product's current version, its row locked until the transaction ends;
 * no row for an unknown id. Sent with BEGIN in one message (a round trip less
 * per write), so without parameters: the id is an integer checked here.
 */
export function lockProduct(id: number): string {
  if (!Number.isSafeInteger(id)) throw new TypeError(`not a product id: ${id}`);
  return `${VERSION_OF_PRODUCT} ${id} FOR UPDATE`;
}

/** Features as the statements return them: in id order, as the reads do. */
const FEATURES_JSON = `coalesce(json_agg(json_build_object('id', f.id, 'productId', f.product_id, 'feature', f.feature, 'value', f.value) ORDER BY f.id), '[]'::json)`;

/** Inserts the features of JSON parameter `$json` (an array of {feature, value}) for product `$product`, in array order. */
const insertFeatures = (product: string, json: string) => `
  INSERT INTO features (product_id, feature, value)
  SELECT ${product}, f.feature, f.value
  FROM ROWS FROM (jsonb_to_recordset(${json}::jsonb) AS (feature text, value text)) WITH ORDINALITY AS f(feature, value, n)
  ORDER BY f.n
  RETURNING id, product_id, feature, value`;

/**
 * Creates a product and its features: $1 name, $2 slogan, $3 description,
 * $4 category, $5 price, $6 features (JSON array). The version comes from the
 * column's default. Announces the change (delivered if the transaction commits).
 */
export const CREATE_PRODUCT = statement('create_product', `
  WITH p AS (
    INSERT INTO products (name, slogan, description, category, default_price)
    VALUES ($1, $2, $3, $4, $5::numeric)
    RETURNING *
  ), added AS (${insertFeatures('(SELECT id FROM p)', '$6')})
  SELECT ${productColumns('p.')}, (SELECT ${FEATURES_JSON} FROM added f) AS features, ${notifyOne('p.id', 'created')} AS announced FROM p`);

/**
 * Changes the locked product $1: each of $2 name, $3 slogan, $4 description,
 * $5 category, $6 price that is not null; $7 (JSON array or null) replaces the
 * features when not null. A new version either way. Returns the product and
 * its features as they now are, and announces the change.
 */
export const UPDATE_PRODUCT = statement('update_product', `
  WITH gone AS (
    DELETE FROM features WHERE product_id = $1 AND $7::jsonb IS NOT NULL
  ), added AS (${insertFeatures('$1', '$7')}
  ), kept AS (
    SELECT id, product_id, feature, value FROM features WHERE product_id = $1 AND $7::jsonb IS NULL
  ), p AS (
    UPDATE products SET
      name = coalesce($2, name), slogan = coalesce($3, slogan), description = coalesce($4, description),
      category = coalesce($5, category), default_price = coalesce($6::numeric, default_price),
      updated_at = now(), version = nextval('product_versions')
    WHERE id = $1
    RETURNING *
  )
  SELECT ${productColumns('p.')}, (SELECT ${FEATURES_JSON} FROM (SELECT * FROM added UNION ALL SELECT * FROM kept) f) AS features,
    ${notifyOne('p.id', 'updated')} AS announced
  FROM p`);

/** Deletes the locked product $1; returns the products that listed it as related (their related rows cascade away). */
export const DELETE_PRODUCT = statement('delete_product', `
  WITH referencing AS (
    SELECT DISTINCT current_product_id AS id FROM related WHERE related_product_id = $1
  ), gone AS (
    DELETE FROM products WHERE id = $1
  )
  SELECT id FROM referencing`);

/** Product $1's version (no row: no such product). */
export const PRODUCT_VERSION = statement('product_version', `${VERSION_OF_PRODUCT} $1`);

/** A product with its features (the answer to a replayed create). */
export const PRODUCT_WITH_FEATURES = statement('product_with_features', `
  SELECT ${productColumns('p.')}, (SELECT ${FEATURES_JSON} FROM features f WHERE f.product_id = p.id) AS features
  FROM products p WHERE p.id = $1`);

/** The idempotency key $1 if stored: its fingerprint, product, and whether it is still live. */
export const FIND_IDEMPOTENCY_KEY = statement('find_idempotency_key', `
  SELECT request_hash AS "requestHash", product_id AS "productId", expires_at > now() AS live
  FROM idempotency_keys WHERE key = $1`);

/**
 * Stores key $1 (fingerprint $2, product $3, lifetime $4 seconds), taking over
 * an expired one. When a live key is there (a concurrent create with the same
 * key committed first: this statement waited for it), nothing is stored and
 * no row returned.
 */
export const STORE_IDEMPOTENCY_KEY = statement('store_idempotency_key', `
  INSERT INTO idempotency_keys (key, request_hash, product_id, expires_at)
  VALUES ($1, $2, $3, now() + make_interval(secs => $4))
  ON CONFLICT (key) DO UPDATE
    SET request_hash = EXCLUDED.request_hash, product_id = EXCLUDED.product_id, created_at = now(), expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= now()
  RETURNING key`);

/** Forgets every expired key. */
export const SWEEP_IDEMPOTENCY_KEYS = statement('sweep_idempotency_keys', 'DELETE FROM idempotency_keys WHERE expires_at <= now()');
