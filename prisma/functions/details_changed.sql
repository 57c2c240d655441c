-- Features and related rows written: the detail documents of their
-- products. One trigger function for both tables: TG_ARGV[0] names the
-- column holding the product id (transition tables are visible to
-- EXECUTE'd queries).
CREATE OR REPLACE FUNCTION details_changed() RETURNS trigger
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

CREATE OR REPLACE TRIGGER features_details_inserted AFTER INSERT ON "features" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE OR REPLACE TRIGGER features_details_updated AFTER UPDATE ON "features" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE OR REPLACE TRIGGER features_details_deleted AFTER DELETE ON "features" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('product_id');
CREATE OR REPLACE TRIGGER related_details_inserted AFTER INSERT ON "related" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');
CREATE OR REPLACE TRIGGER related_details_updated AFTER UPDATE ON "related" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');
CREATE OR REPLACE TRIGGER related_details_deleted AFTER DELETE ON "related" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION details_changed('current_product_id');
