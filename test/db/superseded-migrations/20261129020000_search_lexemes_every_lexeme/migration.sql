-- The dictionary (search_lexemes) holds every lexeme of the search documents,
-- not only those of letters and digits: a prefix is searched as the lexemes
-- it completes to when they are few (PREFIX_EXPANSION in
-- src/catalog/browse-statements.ts), and that must match what the prefix
-- itself matched, compounds included ("running-shoes" is the lexeme
-- 'running-sho' beside 'run' and 'shoe': only it starts with "runni").
-- At full scale this adds 6 lexemes (3.3 s to find them).

-- As in 20261125100000_browse, without the letters-and-digits filter.
CREATE OR REPLACE FUNCTION add_search_lexemes(documents tsvector[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO search_lexemes (lexeme)
  SELECT DISTINCT l FROM unnest(documents) d, unnest(tsvector_to_array(d)) l
  ORDER BY l
  ON CONFLICT DO NOTHING
$$;

-- As in 20261129000000_browse_size_pair_cells, with every lexeme.
CREATE OR REPLACE FUNCTION rebuild_browse_aggregates() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM browse_facet_cells;
  INSERT INTO browse_facet_cells (category, price, on_sale, in_stock, products)
  SELECT category, price, on_sale, sizes <> '{}', count(*) FROM product_browse GROUP BY 1, 2, 3, 4;
  DELETE FROM browse_size_cells;
  INSERT INTO browse_size_cells (category, price, on_sale, size, products)
  SELECT category, price, on_sale, size, count(*) FROM product_browse, unnest(sizes) AS size GROUP BY 1, 2, 3, 4;
  DELETE FROM browse_size_set_cells;
  INSERT INTO browse_size_set_cells (category, price, on_sale, size_set, products)
  SELECT category, price, on_sale, sizes::text, count(*) FROM product_browse WHERE sizes <> '{}' GROUP BY 1, 2, 3, 4;
  -- No ON CONFLICT here: the loader builds the keys after the rows.
  DELETE FROM browse_size_sets;
  INSERT INTO browse_size_sets (size_set, sizes)
  SELECT DISTINCT sizes::text, sizes FROM product_browse WHERE sizes <> '{}';
  DELETE FROM browse_size_pair_cells;
  INSERT INTO browse_size_pair_cells (size_a, size_b, category, price, on_sale, products)
  SELECT a, b, c.category, c.price, c.on_sale, sum(c.products) FROM browse_size_set_cells c
  JOIN browse_size_sets s ON s.size_set = c.size_set, unnest(s.sizes) AS a, unnest(s.sizes) AS b
  WHERE a < b GROUP BY 1, 2, 3, 4, 5;
  DELETE FROM search_lexemes;
  INSERT INTO search_lexemes (lexeme, documents)
  SELECT word, ndoc FROM ts_stat('SELECT document FROM product_browse');
$$;

INSERT INTO search_lexemes (lexeme, documents)
SELECT word, ndoc FROM ts_stat('SELECT document FROM product_browse') WHERE word !~ '^[[:alnum:]]+$'
ON CONFLICT DO NOTHING;
