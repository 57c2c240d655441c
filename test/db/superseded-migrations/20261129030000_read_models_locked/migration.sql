-- The browse rows and the style documents are rebuilt under the products'
-- row locks, as the detail documents are since 20261128010000. Two
-- transactions writing skus (or styles, features) of one product without the
-- API (which locks the product first) each rebuilt the product's browse row
-- from their own snapshot: deleting the two skus of one size at once, each
-- still saw the other's sku, so the size stayed in stock on the browse row
-- (the second writer waited for the first's lock on the row, then compared
-- it with what it had computed before: no change), and the facet cells with
-- it (found by an outside run of 20 writers, one run in five). Taking the
-- products' locks first (in id order) queues the later rebuild behind the
-- earlier writer, and the statements after the lock see what it committed
-- (READ COMMITTED takes a new snapshot per statement).
-- test/db/read-model-races.test.ts replays it on two connections.
--
-- The loader builds browse rows in its own staging tables, which no one
-- else writes: it passes lock_products => false (locking a million rows
-- would rewrite every page of its products table).

DROP FUNCTION refresh_product_browse(integer[]);

CREATE FUNCTION refresh_product_browse(product_ids integer[], lock_products boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF lock_products THEN
    PERFORM 1 FROM products WHERE id = ANY(product_ids) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  DELETE FROM product_browse b WHERE b.product_id = ANY(product_ids)
    AND NOT EXISTS (SELECT 1 FROM products p WHERE p.id = b.product_id);
  INSERT INTO product_browse AS b (product_id, name, category, price, created_at, updated_at, on_sale, sizes, match_a, match_ab, match_abc, document)
  SELECT p.id, p.name, p.category, p.default_price, p.created_at, p.updated_at,
    EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL),
    ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id
          WHERE s.product_id = p.id AND k.quantity > 0 ORDER BY k.size),
    d.match_a, d.match_ab, d.match_abc, d.document
  FROM products p
    LEFT JOIN LATERAL (SELECT string_agg(f.value, ' ' ORDER BY f.id) AS feature_values FROM features f WHERE f.product_id = p.id) fv ON true,
    public.product_search_documents(p.name, p.category, p.slogan, fv.feature_values, p.description) d
  WHERE p.id = ANY(product_ids)
  ORDER BY p.id
  ON CONFLICT (product_id) DO UPDATE SET
    name = EXCLUDED.name, category = EXCLUDED.category, price = EXCLUDED.price,
    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
    on_sale = EXCLUDED.on_sale, sizes = EXCLUDED.sizes,
    match_a = EXCLUDED.match_a, match_ab = EXCLUDED.match_ab, match_abc = EXCLUDED.match_abc, document = EXCLUDED.document
  WHERE (b.name, b.category, b.price, b.created_at, b.updated_at, b.on_sale, b.sizes, b.document)
    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.price, EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.on_sale, EXCLUDED.sizes, EXCLUDED.document);
END $$;

CREATE OR REPLACE FUNCTION refresh_product_style_documents(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products WHERE id = ANY(product_ids) ORDER BY id FOR NO KEY UPDATE;
  DELETE FROM product_style_documents WHERE product_id = ANY(product_ids);
  INSERT INTO product_style_documents (product_id, styles)
  SELECT s.product_id, json_agg(json_build_object(
      'id', s.id, 'productId', s.product_id, 'name', s.name,
      'salePrice', s.sale_price::text, 'originalPrice', s.original_price::text, 'isDefault', s.is_default,
      'photos', coalesce((SELECT json_agg(json_build_object('url', ph.url, 'thumbnailUrl', ph.thumbnail_url) ORDER BY ph.id)
                          FROM photos ph WHERE ph.style_id = s.id), '[]'::json),
      'skus', coalesce((SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
                        FROM skus k WHERE k.style_id = s.id), '[]'::json)
    ) ORDER BY s.id)
  FROM styles s
  WHERE s.product_id = ANY(product_ids) AND EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id)
  GROUP BY s.product_id;
END $$;
