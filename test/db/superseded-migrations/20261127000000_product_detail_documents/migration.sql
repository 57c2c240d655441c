-- The rest of a product page beside its style document: each product's
-- features (JSON, the Feature shape, in row order) and related product ids
-- (in row order, duplicates kept). A product page read them with two
-- correlated subqueries, each an index search, a heap visit and a sort: the
-- page's statement cost Postgres 1.6x what it costs with this table
-- (docs/performance.md, "Fourth pass"). Kept like product_style_documents:
-- statement-level triggers rebuild a product's row in the same transaction as
-- any change to its features or related rows, and the loader builds the rows
-- of a new catalogue (test/etl/load.test.ts checks they are the function's).
-- A product with neither features nor related rows has no row.

-- CreateTable
CREATE TABLE "product_detail_documents" (
    "product_id" INTEGER NOT NULL,
    "features" JSON NOT NULL,
    "related_ids" INTEGER[] NOT NULL,

    CONSTRAINT "product_detail_documents_pkey" PRIMARY KEY ("product_id")
);

-- AddForeignKey
ALTER TABLE "product_detail_documents" ADD CONSTRAINT "product_detail_documents_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rebuilds the rows of the given products. Unqualified names, as in
-- refresh_product_style_documents: the loader's tests run it on staged tables.
CREATE FUNCTION refresh_product_detail_documents(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_detail_documents WHERE product_id = ANY(product_ids);
  INSERT INTO product_detail_documents (product_id, features, related_ids)
  SELECT p.id, coalesce(f.features, '[]'::json), coalesce(r.related_ids, '{}')
  FROM products p
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', f.id, 'productId', f.product_id, 'feature', f.feature, 'value', f.value) ORDER BY f.id) AS features
      FROM features f WHERE f.product_id = p.id) f ON true
    LEFT JOIN LATERAL (
      SELECT array_agg(r.related_product_id ORDER BY r.id) AS related_ids
      FROM related r WHERE r.current_product_id = p.id) r ON true
  WHERE p.id = ANY(product_ids) AND (f.features IS NOT NULL OR r.related_ids IS NOT NULL);
END $$;

-- One trigger function for both tables: TG_ARGV[0] names the column holding
-- the product id (transition tables are visible to EXECUTE'd queries).
CREATE FUNCTION details_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE format('SELECT refresh_product_detail_documents(ARRAY(SELECT DISTINCT %I FROM new_rows))', TG_ARGV[0]);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE format('SELECT refresh_product_detail_documents(ARRAY(SELECT DISTINCT %I FROM old_rows))', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER features_details_inserted AFTER INSERT ON "features" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE TRIGGER features_details_updated AFTER UPDATE ON "features" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE TRIGGER features_details_deleted AFTER DELETE ON "features" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE TRIGGER related_details_inserted AFTER INSERT ON "related" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');
CREATE TRIGGER related_details_updated AFTER UPDATE ON "related" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');
CREATE TRIGGER related_details_deleted AFTER DELETE ON "related" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');

-- Rows for a catalogue that is already there.
SELECT refresh_product_detail_documents(ARRAY(SELECT id FROM products));
