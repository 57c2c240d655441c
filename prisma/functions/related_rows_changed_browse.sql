-- Related rows written: the browse rows of the products they name, whose
-- popularity (how many related rows name them) moved.
CREATE OR REPLACE FUNCTION related_rows_changed_browse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT related_product_id FROM new_rows));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_product_browse(ARRAY(SELECT DISTINCT related_product_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER related_browse_inserted AFTER INSERT ON "related" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION related_rows_changed_browse();
CREATE OR REPLACE TRIGGER related_browse_updated AFTER UPDATE ON "related" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION related_rows_changed_browse();
CREATE OR REPLACE TRIGGER related_browse_deleted AFTER DELETE ON "related" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION related_rows_changed_browse();
