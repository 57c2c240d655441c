-- The card column (20261130000000) was a stored generated column: Postgres
-- re-parsed each whole style document (every style's photos and skus) to
-- find the default style, 1.4-1.5 s per 100,000 documents, and a full load
-- spent 23-27 s of its build (about 15 s of wall time) on it. The default
-- style is now picked where the document is built, from the same style
-- objects, before they are serialised: by this function (the triggers) and
-- by the loader (src/etl/load/load.ts), whose output the loader tests
-- compare with this function's byte for byte. The rule is unchanged: the
-- style marked default with the lowest id, else the lowest id, else none
-- (test/graphql/browse.test.ts checks every document against the resolver's
-- rule, after writes too).
ALTER TABLE "product_style_documents" ALTER COLUMN "default_style" DROP EXPRESSION;
DROP FUNCTION default_style_document(json);

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
