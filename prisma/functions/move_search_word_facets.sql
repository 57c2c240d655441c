-- Moves the counts kept for common words (search_word_facets) by what
-- changed: `changes` holds one JSON object per browse row that appears (n
-- +1) or goes (n -1), with its lexemes (search_word_change). Only words and
-- pairs already kept move (the load decides which: their 'total' row); netted per
-- row and applied in key order, so concurrent writes lock rows in one order.
CREATE OR REPLACE FUNCTION move_search_word_facets(changes jsonb) RETURNS void
LANGUAGE sql AS $$
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(lexemes text[], category text, price numeric(10,2), sizes text[], n int)
  ), w AS (
    -- A kept word the row holds; a kept pair of words (rebuild_search_pair_facets) whose both words it holds.
    SELECT x.lexeme, d.category, d.price, d.sizes, d.n FROM d, unnest(d.lexemes) AS x(lexeme)
    WHERE strpos(x.lexeme, ' ') = 0 AND EXISTS (SELECT 1 FROM search_word_facets t WHERE t.lexeme = x.lexeme AND t.facet = 'total' AND t.value = '')
    UNION ALL
    SELECT t.lexeme, d.category, d.price, d.sizes, d.n FROM d, search_word_facets t
    WHERE t.facet = 'total' AND t.value = '' AND strpos(t.lexeme, ' ') > 0
      AND split_part(t.lexeme, ' ', 1) = ANY(d.lexemes) AND split_part(t.lexeme, ' ', 2) = ANY(d.lexemes)
  ), f AS (
    SELECT lexeme, 'total' AS facet, '' AS value, n FROM w
    UNION ALL SELECT lexeme, 'category', category, n FROM w
    UNION ALL SELECT lexeme, 'price', price::text, n FROM w
    UNION ALL SELECT lexeme, 'size', s, n FROM w, unnest(sizes) AS s
  )
  INSERT INTO search_word_facets AS c (lexeme, facet, value, products)
  SELECT lexeme, facet, value, sum(n)::int FROM f
  GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (lexeme, facet, value) DO UPDATE SET products = c.products + EXCLUDED.products;
$$;
