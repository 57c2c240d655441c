-- Moves the facet cell counts by what changed. `changes` holds one JSON
-- object per browse row (browse_cell_change: {category, price, on_sale,
-- sizes, n}), netted per cell and applied in key order, so concurrent
-- writes lock cells in one order. Cells at 0 stay (and are never shown): a
-- cell that empties and fills again is one row. The cells (docs/browse.md,
-- "Facets"):
--   browse_facet_cells     products per category, price, on sale, in stock
--   browse_size_cells      products per category, price, on sale, size in stock
--   browse_size_sets       every set of sizes in stock a product has had (added, never removed)
--   browse_size_set_cells  products per category, price, on sale, set of sizes
--   browse_size_pair_cells products per pair of sizes (in collation order), category, price, on sale
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
