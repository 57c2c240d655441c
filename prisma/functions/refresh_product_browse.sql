-- The browse rows (product_browse) of the given products, from products,
-- features, styles and skus; a product that no longer exists loses its row.
-- A row holds what browse pages filter and sort on (category, default
-- price, on sale, sizes in stock, name, dates) and what the search ranks by
-- (docs/browse.md, "Ranking"): the search documents of the attribute rule,
--   match_a    the name, and its adjacent word pairs        (weight A)
--   match_ab   + the category                               (weight B)
--   match_abc  + the slogan and the feature values          (weight C)
--   document   + the description                            (weight D)
-- each a tsvector ('english'), concatenated left to right, so a field's
-- positions follow the previous field's; the name's pairs ('forest dress',
-- search_word_pairs) for the proximity rule; name_key, the name's words
-- (search_name_words), for the exactness rule; popularity (how many related
-- rows name the product) and search_order for the tie-break, and
-- search_bucket, the run of search_order it falls in (search_buckets, made
-- by rebuild_search_buckets: 0 before the first).
--
-- Each distinct name and category of a call is turned into a vector once
-- (the loader calls this on chunks of products, and catalogues repeat
-- names and categories), the name's words taken from that same vector; the
-- description, slogan and feature values, nearly always distinct, once per
-- product (sorting the descriptions to find the few repeats costs more than
-- vectorising the repeats again). Unchanged rows are not rewritten, so the
-- facet cells only move when a product's filter values do.
--
-- lock_products: rebuild under the products' row locks, in id order (see
-- refresh_product_style_documents); the loader, whose staging tables no one
-- else writes, passes false. Table names are unqualified on purpose: the
-- loader runs this with its staging schema alone on the search_path.
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
      (SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id) AS feature_values,
      (SELECT count(*) FROM related r WHERE r.related_product_id = p.id)::int AS popularity
    FROM products p WHERE p.id = ANY(product_ids)
  ), names AS MATERIALIZED (
    -- OFFSET 0: each name vectorised once, for both of its uses.
    SELECT t.name, array_to_string(w.words, ' ') AS name_key, setweight(t.vector, 'A') || pairs.vector AS a
    FROM (SELECT name, to_tsvector('english', name) AS vector FROM (SELECT DISTINCT name FROM p) d OFFSET 0) t,
      public.search_name_words(t.vector) AS w(words), public.search_word_pairs(w.words) AS pairs(vector)
  ), categories AS MATERIALIZED (
    SELECT category, setweight(to_tsvector('english', category), 'B') AS b FROM (SELECT DISTINCT category FROM p) t
  )
  INSERT INTO product_browse AS b (product_id, name, category, price, created_at, updated_at, on_sale, sizes, match_a, match_ab, match_abc, document,
    name_key, popularity, search_order, search_bucket)
  SELECT p.id, p.name, p.category, p.default_price, p.created_at, p.updated_at,
    EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL),
    ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id
          WHERE s.product_id = p.id AND k.quantity > 0 ORDER BY k.size),
    n.a, ab.ab, abc.abc, abc.abc || d.d,
    n.name_key, p.popularity, o.search_order,
    coalesce((SELECT s.bucket FROM search_buckets s WHERE s.search_order <= o.search_order ORDER BY s.search_order DESC LIMIT 1), 0)
  FROM p
    LEFT JOIN names n ON n.name = p.name
    LEFT JOIN categories c ON c.category = p.category
    -- OFFSET 0: each concatenation evaluated once, not repeated in every expression that uses it.
    CROSS JOIN LATERAL (SELECT n.a || c.b AS ab OFFSET 0) ab
    CROSS JOIN LATERAL (SELECT ab.ab || setweight(to_tsvector('english', p.slogan || ' ' || coalesce(p.feature_values, '')), 'C') AS abc OFFSET 0) abc
    CROSS JOIN LATERAL (SELECT setweight(to_tsvector('english', p.description), 'D') AS d OFFSET 0) d
    CROSS JOIN LATERAL (SELECT public.search_order(p.popularity, p.id) AS search_order) o
  -- In search order: the loader calls this on stretches of that order, and the rows go into the table as they come.
  ORDER BY o.search_order
  ON CONFLICT (product_id) DO UPDATE SET
    name = EXCLUDED.name, category = EXCLUDED.category, price = EXCLUDED.price,
    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
    on_sale = EXCLUDED.on_sale, sizes = EXCLUDED.sizes,
    match_a = EXCLUDED.match_a, match_ab = EXCLUDED.match_ab, match_abc = EXCLUDED.match_abc, document = EXCLUDED.document,
    name_key = EXCLUDED.name_key, popularity = EXCLUDED.popularity, search_order = EXCLUDED.search_order, search_bucket = EXCLUDED.search_bucket
  WHERE (b.name, b.category, b.price, b.created_at, b.updated_at, b.on_sale, b.sizes, b.document, b.popularity, b.search_bucket)
    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.price, EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.on_sale, EXCLUDED.sizes, EXCLUDED.document,
      EXCLUDED.popularity, EXCLUDED.search_bucket);
END $$;
