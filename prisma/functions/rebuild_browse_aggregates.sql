-- The facet cells and the lexeme dictionary of a whole catalogue, from its
-- browse rows (the loader calls it after building them). The pair cells are
-- summed from the size set cells (a set's pairs once per cell, not every
-- product's sizes twice). No ON CONFLICT: the loader builds the keys after
-- the rows.
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
