-- A product page's styles, with their photos and skus, as one JSON document
-- (product_style_documents.styles), and the style a product card shows
-- (default_style: the style marked default with the lowest id, else the
-- lowest id, else none), picked from the same style objects before they are
-- serialised.
--
-- Rebuilt under the products' row locks, taken in id order, so a rebuild
-- queues behind a concurrent writer of the same product and reads what it
-- committed (READ COMMITTED takes a new snapshot per statement).
-- Table names are unqualified on purpose: the loader (src/etl/load) builds
-- the same rows in its staging schema, and test/etl/load.test.ts compares
-- them with this function's byte for byte. Prices are text so "140.00"
-- stays "140.00".
CREATE OR REPLACE FUNCTION refresh_product_style_documents(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products WHERE id = ANY(product_ids) ORDER BY id FOR NO KEY UPDATE;
  DELETE FROM product_style_documents WHERE product_id = ANY(product_ids);
  INSERT INTO product_style_documents (product_id, styles, default_style)
  SELECT st.product_id, json_agg(st.style ORDER BY st.id), (array_agg(st.style ORDER BY NOT st.is_default, st.id))[1]
  FROM (
    SELECT s.product_id, s.id, s.is_default, json_build_object(
        'id', s.id, 'productId', s.product_id, 'name', s.name,
        'salePrice', s.sale_price::text, 'originalPrice', s.original_price::text, 'isDefault', s.is_default,
        'photos', coalesce((SELECT json_agg(json_build_object('url', ph.url, 'thumbnailUrl', ph.thumbnail_url) ORDER BY ph.id)
                            FROM photos ph WHERE ph.style_id = s.id), '[]'::json),
        'skus', coalesce((SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
                          FROM skus k WHERE k.style_id = s.id), '[]'::json)
      ) AS style
    FROM styles s
    WHERE s.product_id = ANY(product_ids) AND EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id)
  ) st
  GROUP BY st.product_id;
END $$;
