-- The counts kept for common words (search_word_facets, docs/browse.md
-- "Facets") of a whole catalogue, from its browse rows: every lexeme of the
-- search documents held by at least from_documents rows, with its rows counted
-- per category, per size in stock, per price and in total. One pass over
-- the documents' lexemes, grouped four ways; the sizes are grouped by their
-- set first (a few thousand sets, not every product's sizes). No ON
-- CONFLICT: the loader builds the key after the rows.
--
-- from_documents: below it, counting a search's matches themselves (at most
-- that many rows read) is cheap; above it, reading up to COUNT_EXACT_UP_TO
-- matches is what made the counts of a common word the slowest request
-- (docs/browse.md, "Facets").
CREATE OR REPLACE FUNCTION rebuild_search_word_facets(from_documents integer DEFAULT 1000) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM search_word_facets;
  INSERT INTO search_word_facets (lexeme, facet, value, products)
  WITH grouped AS MATERIALIZED (
    -- by: which grouping set (GROUPING's bits: 1 for each of category, price, sizes left out).
    SELECT w.lexeme, b.category, b.price, b.sizes, GROUPING(b.category, b.price, b.sizes) AS by, count(*) AS products
    FROM product_browse b, unnest(tsvector_to_array(b.document)) AS w(lexeme)
    GROUP BY GROUPING SETS ((w.lexeme), (w.lexeme, b.category), (w.lexeme, b.price), (w.lexeme, b.sizes))
  )
  SELECT g.lexeme, f.facet, f.value, sum(g.products)::int
  FROM grouped g
    CROSS JOIN LATERAL (
      SELECT 'total' AS facet, '' AS value WHERE g.by = 7
      UNION ALL SELECT 'category', g.category WHERE g.by = 3
      UNION ALL SELECT 'price', g.price::text WHERE g.by = 5
      UNION ALL SELECT 'size', s FROM unnest(CASE WHEN g.by = 6 THEN g.sizes END) AS s) f
  WHERE g.lexeme IN (SELECT t.lexeme FROM grouped t WHERE t.by = 7 AND t.products >= from_documents)
  GROUP BY 1, 2, 3;
$$;
