-- Facets of a filter on two sizes ("M or L") from pair cells
-- (docs/browse.md): how many products of each combination of category,
-- default price and on sale have both sizes in stock. Products with either
-- size = those with the first + those with the second - those with both, so
-- a two-size filter reads two sizes' cells and one pair's cells (about 1,230
-- rows at full scale) instead of every size set cell holding either size
-- (54,305 of 107,209 cells, 46 ms). A pair's sizes are in collation order
-- (size_a < size_b); its cells are keyed by the pair first, so a filter reads
-- only its pair. Three or more sizes still read the size set cells.

-- CreateTable
CREATE TABLE "browse_size_pair_cells" (
    "size_a" TEXT NOT NULL,
    "size_b" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_pair_cells_pkey" PRIMARY KEY ("size_a","size_b","category","price","on_sale")
);

-- As in 20261126090000_browse_size_sets, plus the pair cells.
CREATE OR REPLACE FUNCTION move_browse_facet_cells(changes jsonb) RETURNS void
LANGUAGE sql AS $$
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(category text, price numeric(10,2), on_sale boolean, sizes text[], n int)
  )
  INSERT INTO browse_facet_cells AS c (category, price, on_sale, in_stock, products)
  SELECT category, price, on_sale, sizes <> '{}', sum(n)::int FROM d
  GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, price, on_sale, in_stock) DO UPDATE SET products = c.products + EXCLUDED.products;
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(category text, price numeric(10,2), on_sale boolean, sizes text[], n int)
  )
  INSERT INTO browse_size_cells AS c (category, price, on_sale, size, products)
  SELECT category, price, on_sale, size, sum(n)::int FROM d, unnest(sizes) AS size
  GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, price, on_sale, size) DO UPDATE SET products = c.products + EXCLUDED.products;
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(sizes text[], n int)
  )
  INSERT INTO browse_size_sets (size_set, sizes)
  SELECT DISTINCT sizes::text, sizes FROM d WHERE n > 0 AND sizes <> '{}' ORDER BY 1
  ON CONFLICT (size_set) DO NOTHING;
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(category text, price numeric(10,2), on_sale boolean, sizes text[], n int)
  )
  INSERT INTO browse_size_set_cells AS c (category, price, on_sale, size_set, products)
  SELECT category, price, on_sale, sizes::text, sum(n)::int FROM d WHERE sizes <> '{}'
  GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, price, on_sale, size_set) DO UPDATE SET products = c.products + EXCLUDED.products;
  WITH d AS (
    SELECT * FROM jsonb_to_recordset(coalesce(changes, '[]')) AS d(category text, price numeric(10,2), on_sale boolean, sizes text[], n int)
  )
  INSERT INTO browse_size_pair_cells AS c (size_a, size_b, category, price, on_sale, products)
  SELECT a, b, category, price, on_sale, sum(n)::int FROM d, unnest(sizes) AS a, unnest(sizes) AS b WHERE a < b
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (size_a, size_b, category, price, on_sale) DO UPDATE SET products = c.products + EXCLUDED.products;
$$;

-- The pair cells are summed from the size set cells (a set's pairs once per
-- cell: 107,209 cells at full scale, not a million products' sizes twice).
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
  SELECT word, ndoc FROM ts_stat('SELECT document FROM product_browse') WHERE word ~ '^[[:alnum:]]+$';
$$;

-- The pair cells of a catalogue that is already there.
INSERT INTO browse_size_pair_cells (size_a, size_b, category, price, on_sale, products)
SELECT a, b, c.category, c.price, c.on_sale, sum(c.products) FROM browse_size_set_cells c
JOIN browse_size_sets s ON s.size_set = c.size_set, unnest(s.sizes) AS a, unnest(s.sizes) AS b
WHERE a < b AND c.products <> 0 GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.products) <> 0;
