-- Features and styles written: the browse rows of the products they belong
-- to, before and after.
CREATE OR REPLACE FUNCTION product_rows_changed_browse() RETURNS trigger
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

CREATE OR REPLACE TRIGGER features_browse_inserted AFTER INSERT ON "features" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE OR REPLACE TRIGGER features_browse_updated AFTER UPDATE ON "features" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE OR REPLACE TRIGGER features_browse_deleted AFTER DELETE ON "features" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE OR REPLACE TRIGGER styles_browse_inserted AFTER INSERT ON "styles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE OR REPLACE TRIGGER styles_browse_updated AFTER UPDATE ON "styles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
CREATE OR REPLACE TRIGGER styles_browse_deleted AFTER DELETE ON "styles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_browse();
