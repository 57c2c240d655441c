-- A product's detail document is rebuilt under that product's row lock.
-- Deleting a product cascades to the related rows of the products that list
-- it, and the trigger rebuilt those products' documents without holding
-- their locks: when one of them was being written at the same moment (its
-- writer holds its lock and rebuilds its document too), both deleted the
-- row and both inserted it, and the second insert failed on the primary key
-- (a 500 for the delete: test/faults/contention.test.ts, about one run in
-- twenty). Taking the products' locks first (in id order) queues such a
-- rebuild behind the product's writer; the statements after the lock see
-- what that writer committed (READ COMMITTED takes a new snapshot per
-- statement), so the document is rebuilt from the latest rows, not merely
-- without the error. A product's own writer already holds its lock.

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
