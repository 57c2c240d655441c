-- The counts kept for common words (search_word_facets, docs/browse.md
-- "Facets") of a whole catalogue, from its browse rows: every lexeme of the
-- search documents held by at least from_documents rows, with its rows counted
-- per category, per size in stock, per price and in total. A name's word
-- pairs, lexemes of the documents too, are left out: their rows count the
-- products holding both words (rebuild_search_pair_facets). One pass over
-- the documents' lexemes, grouped two ways: by category and price (the
-- total, category and price counts are summed from those), and by set of
-- sizes, numbered first (a few thousand sets: an integer hashes faster than
-- the array, and each set is unnested once per word, not once per product).
-- No ON CONFLICT: the loader builds the key after the rows.
--
-- from_documents: below it, counting a search's matches themselves (at most
-- that many rows read) is cheap; above it, reading up to COUNT_EXACT_UP_TO
-- matches is what made the counts of a common word the slowest request
-- (docs/browse.md, "Facets").
--
-- No nested loops: the planner cannot see into the grouped CTE (it guesses a
-- few thousand rows and one kept word) and joined kept to grouped by a nested
-- loop, a scan of every grouped row per kept word: 133 s at scale 0.1 and
-- about half this build's time at full scale, against 8 s hashed.
CREATE OR REPLACE FUNCTION rebuild_search_word_facets(from_documents integer DEFAULT 1000) RETURNS void
LANGUAGE sql SET enable_nestloop = off AS $$
  DELETE FROM search_word_facets;
  INSERT INTO search_word_facets (lexeme, facet, value, products)
  WITH sets AS MATERIALIZED (
    SELECT d.sizes, row_number() OVER () AS id FROM (SELECT DISTINCT sizes FROM product_browse) d
  ), grouped AS MATERIALIZED (
    -- by: GROUPING's bits, 1 for each of category, price, set left out: 1 by category and price, 6 by set.
    SELECT w.lexeme, b.category, b.price, s.id AS set_id, GROUPING(b.category, b.price, s.id) AS by, count(*) AS products
    FROM product_browse b JOIN sets s ON s.sizes = b.sizes, unnest(tsvector_to_array(b.document)) AS w(lexeme)
    GROUP BY GROUPING SETS ((w.lexeme, b.category, b.price), (w.lexeme, s.id))
  ), kept AS MATERIALIZED (
    SELECT g.lexeme, sum(g.products) AS products FROM grouped g WHERE g.by = 1 AND strpos(g.lexeme, ' ') = 0
    GROUP BY g.lexeme HAVING sum(g.products) >= from_documents
  )
  SELECT k.lexeme, 'total', '', k.products::int FROM kept k
  UNION ALL
  SELECT g.lexeme, 'category', g.category, sum(g.products)::int FROM grouped g JOIN kept USING (lexeme) WHERE g.by = 1 GROUP BY g.lexeme, g.category
  UNION ALL
  SELECT g.lexeme, 'price', g.price::text, sum(g.products)::int FROM grouped g JOIN kept USING (lexeme) WHERE g.by = 1 GROUP BY g.lexeme, g.price
  UNION ALL
  SELECT g.lexeme, 'size', x.size, sum(g.products)::int FROM grouped g JOIN kept USING (lexeme) JOIN sets s ON s.id = g.set_id, unnest(s.sizes) AS x(size)
  WHERE g.by = 6 GROUP BY g.lexeme, x.size;
$$;
