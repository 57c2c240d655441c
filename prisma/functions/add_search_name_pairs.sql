-- Adds every two words of these product names to the dictionary of words
-- found together in a name (search_name_pairs), as "a b" both ways round:
-- the lexemes of to_tsvector('english', name), the name's own words in its
-- browse row's match_a (refresh_product_browse). A search of several words
-- reads the name tier's levels only when every two of its kept words share
-- a name (src/catalog/browse/search-statements.ts): proving such a level empty
-- through GIN meant intersecting the words' whole postings in the names.
-- Pairs are added, never removed: a stale one only costs that GIN scan.
CREATE OR REPLACE FUNCTION add_search_name_pairs(names text[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO search_name_pairs (pair)
  -- Each name's lexemes computed once (OFFSET 0: not once per row of the
  -- pairs), each two of them once (a < b), then written both ways round;
  -- in order, so concurrent writers take the keys in the same order.
  SELECT p
  FROM (SELECT DISTINCT a, b
        FROM unnest(names) AS n(name), LATERAL (SELECT tsvector_to_array(to_tsvector('english', n.name)) AS lexemes OFFSET 0) w,
          unnest(w.lexemes) AS a, unnest(w.lexemes) AS b
        WHERE a < b) d, unnest(ARRAY[d.a || ' ' || d.b, d.b || ' ' || d.a]) AS p
  ORDER BY 1
  ON CONFLICT DO NOTHING
$$;
