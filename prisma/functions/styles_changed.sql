-- Styles written: the style documents of the products they belong to,
-- before and after. Triggers with transition tables take one event each,
-- hence three.
CREATE OR REPLACE FUNCTION styles_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM refresh_product_style_documents(ARRAY(SELECT DISTINCT product_id FROM new_rows));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_product_style_documents(ARRAY(SELECT DISTINCT product_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER styles_inserted AFTER INSERT ON "styles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
CREATE OR REPLACE TRIGGER styles_updated AFTER UPDATE ON "styles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
CREATE OR REPLACE TRIGGER styles_deleted AFTER DELETE ON "styles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
