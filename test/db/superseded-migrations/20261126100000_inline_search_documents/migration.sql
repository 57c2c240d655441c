-- The search documents without a function call per product (docs/data.md,
-- "ETL speed"). product_search_documents returned one record, which Postgres
-- runs through the SQL-function executor once per product: at a full load
-- that call cost as much as the four to_tsvector it wraps. Declared as a
-- set-returning function with one SELECT, it is inlined into the calling
-- query instead, as long as its arguments hold no sub-select: so
-- refresh_product_browse now aggregates the feature values in a lateral
-- join. OFFSET 0 keeps each to_tsvector evaluated once (a flattened
-- subquery would repeat `a` in four expressions). Same documents, byte for
-- byte: test/etl/load.test.ts compares the loader's rows with this function's.

DROP FUNCTION product_search_documents(text, text, text, text, text);
CREATE FUNCTION product_search_documents(name text, category text, slogan text, feature_values text, description text)
RETURNS TABLE (match_a tsvector, match_ab tsvector, match_abc tsvector, document tsvector)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
  SELECT a, a || b, a || b || c, a || b || c || d
  FROM (SELECT setweight(to_tsvector('english', name), 'A') AS a,
               setweight(to_tsvector('english', category), 'B') AS b,
               setweight(to_tsvector('english', slogan || ' ' || coalesce(feature_values, '')), 'C') AS c,
               setweight(to_tsvector('english', description), 'D') AS d
        OFFSET 0) parts
$$;

CREATE OR REPLACE FUNCTION refresh_product_browse(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
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
