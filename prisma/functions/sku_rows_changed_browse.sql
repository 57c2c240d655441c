-- Skus written: the browse rows of the products of the styles they belong
-- to. A style deleted with its skus has already refreshed its product.
CREATE OR REPLACE FUNCTION sku_rows_changed_browse() RETURNS trigger
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

CREATE OR REPLACE TRIGGER skus_browse_inserted AFTER INSERT ON "skus" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
CREATE OR REPLACE TRIGGER skus_browse_updated AFTER UPDATE ON "skus" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
CREATE OR REPLACE TRIGGER skus_browse_deleted AFTER DELETE ON "skus" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sku_rows_changed_browse();
