-- Browse and search (docs/browse.md): a read model of what filters, orderings,
-- full-text search and facets read, kept in sync by triggers in the same
-- transaction as every change to products, features, styles and skus (so it
-- is never stale), and built by the loader (src/etl/load) with the same
-- functions for a new catalogue.
--
-- product_browse: one row per product: the sort keys, the filter values
-- (category, default price, on sale, sizes in stock) and the weighted search
-- document. browse_facet_cells: how many products share each combination of
-- category, price, on sale and in stock; browse_size_cells: how many of each
-- combination of category, price and on sale have each size in stock. Facets
-- and counts of a filter read these few thousand rows instead of a million
-- products.
-- search_lexemes: every plain lexeme of the search documents, trigram-indexed,
-- for the typo fallback (a query word that matches nothing is replaced by the
-- most similar lexeme). Lexemes are added, never removed: a stale one only
-- ever suggests a word that matches nothing.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateTable
CREATE TABLE "product_browse" (
    "product_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "sizes" TEXT[] NOT NULL,
    "match_a" tsvector NOT NULL,
    "match_ab" tsvector NOT NULL,
    "match_abc" tsvector NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "product_browse_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "browse_facet_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "in_stock" BOOLEAN NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_facet_cells_pkey" PRIMARY KEY ("category","price","on_sale","in_stock")
);

-- CreateTable
CREATE TABLE "browse_size_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "size" TEXT NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_cells_pkey" PRIMARY KEY ("category","price","on_sale","size")
);

-- CreateTable
CREATE TABLE "search_lexemes" (
    "lexeme" TEXT NOT NULL,

    CONSTRAINT "search_lexemes_pkey" PRIMARY KEY ("lexeme")
);

-- AddForeignKey
ALTER TABLE "product_browse" ADD CONSTRAINT "product_browse_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The search documents of a product, by field weight (docs/browse.md):
-- A name, B category, C slogan and feature values, D description. A search
-- ranks a product by the smallest of these sets of fields that holds every
-- word: match_a (A), match_ab (A, B), match_abc (A-C), document (A-D,
-- weighted: what snippets and ts_rank read). Each has its own GIN index and
-- statistics, so the planner knows how common a word is in each.
CREATE FUNCTION product_search_documents(name text, category text, slogan text, feature_values text, description text,
  OUT match_a tsvector, OUT match_ab tsvector, OUT match_abc tsvector, OUT document tsvector)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT a, a || b, a || b || c, a || b || c || d
  FROM (SELECT setweight(to_tsvector('english', name), 'A') AS a,
               setweight(to_tsvector('english', category), 'B') AS b,
               setweight(to_tsvector('english', slogan || ' ' || coalesce(feature_values, '')), 'C') AS c,
               setweight(to_tsvector('english', description), 'D') AS d) parts
$$;

-- Rebuilds the browse rows of the given products from products, features,
-- styles and skus (a product that no longer exists loses its row). Table
-- names are unqualified on purpose: the loader runs it with its staging
-- schema alone on the search_path (so the function it calls is qualified). Unchanged rows are not rewritten, so the
-- facet cells only move when a product's filter values do.
CREATE FUNCTION refresh_product_browse(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_browse b WHERE b.product_id = ANY(product_ids)
    AND NOT EXISTS (SELECT 1 FROM products p WHERE p.id = b.product_id);
  INSERT INTO product_browse AS b (product_id, name, category, price, created_at, updated_at, on_sale, sizes, match_a, match_ab, match_abc, document)
  SELECT p.id, p.name, p.category, p.default_price, p.created_at, p.updated_at,
    EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id AND s.sale_price IS NOT NULL),
    ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id
          WHERE s.product_id = p.id AND k.quantity > 0 ORDER BY k.size),
    d.match_a, d.match_ab, d.match_abc, d.document
  FROM products p,
    public.product_search_documents(p.name, p.category, p.slogan,
      (SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id), p.description) d
  WHERE p.id = ANY(product_ids)
  ORDER BY p.id
  ON CONFLICT (product_id) DO UPDATE SET
    name = EXCLUDED.name, category = EXCLUDED.category, price = EXCLUDED.price,
    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
    on_sale = EXCLUDED.on_sale, sizes = EXCLUDED.sizes,
    match_a = EXCLUDED.match_a, match_ab = EXCLUDED.match_ab, match_abc = EXCLUDED.match_abc, document = EXCLUDED.document
  WHERE (b.name, b.category, b.price, b.created_at, b.updated_at, b.on_sale, b.sizes, b.document)
    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.price, EXCLUDED.created_at, EXCLUDED.updated_at, EXCLUDED.on_sale, EXCLUDED.sizes, EXCLUDED.document);
END $$;

-- Adds the plain (letters and digits only) lexemes of these documents to the dictionary.
CREATE FUNCTION add_search_lexemes(documents tsvector[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO search_lexemes (lexeme)
  SELECT DISTINCT l FROM unnest(documents) d, unnest(tsvector_to_array(d)) l
  WHERE l ~ '^[[:alnum:]]+$'
  ORDER BY l
  ON CONFLICT DO NOTHING
$$;

-- Moves facet cell counts by what changed: `changes` holds one JSON object
-- per browse row ({category, price, on_sale, sizes, n}: n is +1 for a new
-- row, -1 for an old one), netted per cell and applied in key order (so
-- concurrent writes lock cells in one order). Cells at 0 stay (and are never
-- shown): a cell that empties and fills again is one row.
CREATE FUNCTION move_browse_facet_cells(changes jsonb) RETURNS void
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
$$;

-- A browse row as a facet cell change.
CREATE FUNCTION browse_cell_change(category text, price numeric, on_sale boolean, sizes text[], n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('category', category, 'price', price, 'on_sale', on_sale, 'sizes', sizes, 'n', n)
$$;

-- The facet cells and the lexeme dictionary of a whole catalogue, from its
-- browse rows (the loader, and this migration for a catalogue already there).
CREATE FUNCTION rebuild_browse_aggregates() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM browse_facet_cells;
  INSERT INTO browse_facet_cells (category, price, on_sale, in_stock, products)
  SELECT category, price, on_sale, sizes <> '{}', count(*) FROM product_browse GROUP BY 1, 2, 3, 4;
  DELETE FROM browse_size_cells;
  INSERT INTO browse_size_cells (category, price, on_sale, size, products)
  SELECT category, price, on_sale, size, count(*) FROM product_browse, unnest(sizes) AS size GROUP BY 1, 2, 3, 4;
  INSERT INTO search_lexemes (lexeme)
  SELECT word FROM ts_stat('SELECT document FROM product_browse') WHERE word ~ '^[[:alnum:]]+$'
  ON CONFLICT DO NOTHING;
$$;

-- Triggers with transition tables can have one event each, hence one per event.
CREATE FUNCTION product_browse_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(browse_cell_change(category, price, on_sale, sizes, 1)) FROM new_rows));
    PERFORM add_search_lexemes(ARRAY(SELECT document FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(c) FROM (
      SELECT browse_cell_change(category, price, on_sale, sizes, 1) AS c FROM new_rows
      UNION ALL
      SELECT browse_cell_change(category, price, on_sale, sizes, -1) FROM old_rows) changes));
    PERFORM add_search_lexemes(ARRAY(SELECT n.document FROM new_rows n JOIN old_rows o USING (product_id) WHERE n.document <> o.document));
  ELSE
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(browse_cell_change(category, price, on_sale, sizes, -1)) FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

-- A product written (created or updated): its browse row. A deleted product's
-- row goes with it (foreign key cascade).
CREATE FUNCTION products_changed_browse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_product_browse(ARRAY(SELECT id FROM new_rows));
  RETURN NULL;
END $$;

-- Features and styles: the products they belong to, before and after.
CREATE FUNCTION product_rows_changed_browse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT product_id FROM new_rows));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT product_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

-- Skus: the products of the styles they belong to. A style deleted with its
-- skus has already refreshed its product.
CREATE FUNCTION sku_rows_changed_browse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT s.product_id FROM new_rows r JOIN styles s ON s.id = r.style_id));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT s.product_id FROM old_rows r JOIN styles s ON s.id = r.style_id));
  END IF;
  RETURN NULL;
END $$;

-- The read model of a catalogue that is already there, built before the
-- triggers exist (the loader does the same).
SELECT refresh_product_browse(ARRAY(SELECT id FROM products));
SELECT rebuild_browse_aggregates();

-- CreateIndex (after the rows: one bulk build each): keyset pages in each ordering (ties by id), and a category in id order.
CREATE INDEX "product_browse_name_product_id_idx" ON "product_browse"("name", "product_id");
CREATE INDEX "product_browse_price_product_id_idx" ON "product_browse"("price", "product_id");
CREATE INDEX "product_browse_created_at_product_id_idx" ON "product_browse"("created_at", "product_id");
CREATE INDEX "product_browse_updated_at_product_id_idx" ON "product_browse"("updated_at", "product_id");
CREATE INDEX "product_browse_category_product_id_idx" ON "product_browse"("category", "product_id");
CREATE INDEX "product_browse_category_price_product_id_idx" ON "product_browse"("category", "price", "product_id");

-- CreateIndex: full-text search, one index per rank tier (docs/browse.md).
CREATE INDEX "product_browse_match_a_idx" ON "product_browse" USING GIN ("match_a");
CREATE INDEX "product_browse_match_ab_idx" ON "product_browse" USING GIN ("match_ab");
CREATE INDEX "product_browse_match_abc_idx" ON "product_browse" USING GIN ("match_abc");
CREATE INDEX "product_browse_document_idx" ON "product_browse" USING GIN ("document");

-- CreateIndex: nearest lexeme by trigram distance (KNN needs GiST).
CREATE INDEX "search_lexemes_lexeme_idx" ON "search_lexemes" USING GIST ("lexeme" gist_trgm_ops);


CREATE TRIGGER product_browse_inserted AFTER INSERT ON "product_browse" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
CREATE TRIGGER product_browse_updated AFTER UPDATE ON "product_browse" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
CREATE TRIGGER product_browse_deleted AFTER DELETE ON "product_browse" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
CREATE TRIGGER products_browse_inserted AFTER INSERT ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_browse();
CREATE TRIGGER products_browse_updated AFTER UPDATE ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_browse();
CREATE TRIGGER features_browse_inserted AFTER INSERT ON "features" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER features_browse_updated AFTER UPDATE ON "features" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER features_browse_deleted AFTER DELETE ON "features" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER styles_browse_inserted AFTER INSERT ON "styles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER styles_browse_updated AFTER UPDATE ON "styles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER styles_browse_deleted AFTER DELETE ON "styles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE TRIGGER skus_browse_inserted AFTER INSERT ON "skus" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
CREATE TRIGGER skus_browse_updated AFTER UPDATE ON "skus" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
CREATE TRIGGER skus_browse_deleted AFTER DELETE ON "skus" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
