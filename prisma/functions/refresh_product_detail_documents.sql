-- The rest of a product page beside its style document: the product's
-- features (JSON, the Feature shape, in row order) and related product ids
-- (in row order, duplicates kept). A product with neither has no row.
--
-- Rebuilt under the products' row locks, taken in id order: deleting a
-- product cascades to the related rows of the products that list it, and
-- without the locks a rebuild of one of those products raced its own
-- writer's (both inserted the row; test/faults/contention.test.ts).
-- Unqualified table names, as in refresh_product_style_documents.
CREATE OR REPLACE FUNCTION refresh_product_detail_documents(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products WHERE id = ANY(product_ids) ORDER BY id FOR NO KEY UPDATE;
  DELETE FROM product_detail_documents WHERE product_id = ANY(product_ids);
  INSERT INTO product_detail_documents (product_id, features, related_ids)
  SELECT p.id, coalesce(f.features, '[]'::json), coalesce(r.related_ids, '{}')
  FROM products p
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', f.id, 'productId', f.product_id, 'feature', f.feature, 'value', f.value) ORDER BY f.id) AS features
      FROM features f WHERE f.product_id = p.id) f ON true
    LEFT JOIN LATERAL (
      SELECT array_agg(r.related_product_id ORDER BY r.id) AS related_ids
      FROM related r WHERE r.current_product_id = p.id) r ON true
  WHERE p.id = ANY(product_ids) AND (f.features IS NOT NULL OR r.related_ids IS NOT NULL);
END $$;
