-- Each distinct text's search vector computed once per call, not once per
-- product (docs/data.md, "ETL speed"). The loader builds the browse rows by
-- calling refresh_product_browse on chunks of products, and a catalogue
-- repeats its texts: the generated full-scale one has 2,170 distinct
-- descriptions, 2,080 names and 16 categories for 1,000,011 products, and
-- the legacy names come from a product-name generator too. to_tsvector of the
-- descriptions was most of the browse rows' cost: a chunk of 20,000
-- products' search documents took 710 ms with a to_tsvector per product and
-- 311 ms with one per distinct text. The slogan and the feature values stay
-- one vector per product: the feature values make nearly every one of them
-- distinct. The vectors are the same, byte for byte (test/etl/load.test.ts
-- compares the loader's rows with a rebuild by this function); only where
-- they are computed changes. The weights, which were set by
-- product_search_documents, are now set here: A name, B category, C slogan
-- and feature values, D description (SEARCH_WEIGHTS in
-- src/catalog/browse-statements.ts). The tiers are concatenated left to
-- right as before (a || b || c || d), each once.

CREATE OR REPLACE FUNCTION refresh_product_browse(product_ids integer[], lock_products boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF lock_products THEN
    PERFORM 1 FROM products WHERE id = ANY(product_ids) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  DELETE FROM product_browse b WHERE b.product_id = ANY(product_ids)
    AND NOT EXISTS (SELECT 1 FROM products p WHERE p.id = b.product_id);
  WITH p AS MATERIALIZED (
    SELECT p.id, p.name, p.category, p.slogan, p.description, p.default_price, p.created_at, p.updated_at,
      (SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id) AS feature_values
    FROM products p WHERE p.id = ANY(product_ids)
  ), names AS MATERIALIZED (
    SELECT name, setweight(to_tsvector('english', name), 'A') AS a FROM (SELECT DISTINCT name FROM p) t
  ), categories AS MATERIALIZED (
    SELECT category, setweight(to_tsvector('english', category), 'B') AS b FROM (SELECT DISTINCT category FROM p) t
  ), descriptions AS MATERIALIZED (
    SELECT description, setweight(to_tsvector('english', description), 'D') AS d FROM (SELECT DISTINCT description FROM p) t
  )
  INSERT INTO product_browse AS b (product_id, name, category, price, created_at, updated_at, on_sale, sizes, match_a, match_ab, match_abc, document)
  SELECT p.id, p.name, p.category, p.default_price, p.created_at, p.updated_at,
    EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL),
    ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id
          WHERE s.product_id = p.id AND k.quantity > 0 ORDER BY k.size),
    n.a, ab.ab, abc.abc, abc.abc || d.d
  FROM p
    LEFT JOIN names n ON n.name = p.name
    LEFT JOIN categories c ON c.category = p.category
    LEFT JOIN descriptions d ON d.description = p.description
    -- OFFSET 0: each concatenation evaluated once, not repeated in every expression that uses it.
    CROSS JOIN LATERAL (SELECT n.a || c.b AS ab OFFSET 0) ab
    CROSS JOIN LATERAL (SELECT ab.ab || setweight(to_tsvector('english', p.slogan || ' ' || coalesce(p.feature_values, '')), 'C') AS abc OFFSET 0) abc
  ORDER BY p.id
  ON CONFLICT (product_id) DO UPDATE SET
    name = EXCLUDED.name, category = EXCLUDED.category, price = EXCLUDED.price,
    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
    on_sale = EXCLUDED.on_sale, sizes = EXCLUDED.sizes,
    match_a = EXCLUDED.match_a, match_ab = EXCLUDED.match_ab, match_abc = EXCLUDED.match_abc, document = EXCLUDED.document
  WHERE (b.name, b.category, b.price, b.created_at, b.updated_at, b.on_sale, b.sizes, b.document)
    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.price, EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.on_sale, EXCLUDED.sizes, EXCLUDED.document);
END $$;

DROP FUNCTION product_search_documents(text, text, text, text, text);
