-- Browse at full scale, in three parts: cells for filters on several sizes,
-- how common each search word is, and a sample index for search facets.
--
-- Facets and counts of a filter on two or more sizes ("M or L") from cells
-- rather than product rows (docs/browse.md). browse_size_cells cannot answer
-- it: a product with both sizes is in two of its cells. So:
-- browse_size_sets: every set of sizes in stock some product has had (2,013
-- at full scale); browse_size_set_cells: how many products share each
-- combination of category, default price, on sale and set (107,209 cells
-- for 1,000,011 products; products with no size in stock are left out: they
-- match no size). "Any of these sizes" is tested on the sets once, then the
-- cells are matched to them in a hash: comparing the arrays in every cell
-- took 0.4 µs a cell. A set is keyed by its text (sizes::text: a key cannot
-- be a list in Prisma); sets are added, never removed (like search_lexemes).

-- How many products' documents hold each lexeme, as of the last load (or
-- this migration): a search leaves out its commonest words past a budget of
-- posting-list work (SEARCH_POSTINGS_SHARE in src/catalog/browse-statements.ts).
-- Lexemes that writes add start at 0 (rare); a reload counts them again.
ALTER TABLE "search_lexemes" ADD COLUMN "documents" INTEGER NOT NULL DEFAULT 0;
UPDATE search_lexemes l SET documents = s.ndoc
FROM ts_stat('SELECT document FROM product_browse') s WHERE s.word = l.lexeme;

-- CreateTable
CREATE TABLE "browse_size_sets" (
    "size_set" TEXT NOT NULL,
    "sizes" TEXT[] NOT NULL,

    CONSTRAINT "browse_size_sets_pkey" PRIMARY KEY ("size_set")
);

-- CreateTable
CREATE TABLE "browse_size_set_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "size_set" TEXT NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_set_cells_pkey" PRIMARY KEY ("category","price","on_sale","size_set")
);

-- As in 20261125100000_browse, plus the size sets and their cells.
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
$$;

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
  DELETE FROM search_lexemes;
  INSERT INTO search_lexemes (lexeme, documents)
  SELECT word, ndoc FROM ts_stat('SELECT document FROM product_browse') WHERE word ~ '^[[:alnum:]]+$';
$$;

-- The sets and cells of a catalogue that is already there.
INSERT INTO browse_size_set_cells (category, price, on_sale, size_set, products)
SELECT category, price, on_sale, sizes::text, count(*) FROM product_browse WHERE sizes <> '{}' GROUP BY 1, 2, 3, 4;
INSERT INTO browse_size_sets (size_set, sizes)
SELECT DISTINCT sizes::text, sizes FROM product_browse WHERE sizes <> '{}';

-- Search facets of a common word estimate from a sample of its matches
-- (docs/browse.md): the products whose id is a multiple of 64, with a GIN
-- index of their own, so the sample's matches are found without reading the
-- word's whole posting list (170,173 entries for "zipper", 55 ms) and a
-- rare word is known to be rare before it is counted in full. Prisma's
-- schema cannot declare a partial index: the drift test lists it.
CREATE INDEX "product_browse_document_sample_idx" ON "product_browse" USING GIN ("document") WHERE product_id % 64 = 0;
