-- Features, styles and related rows written: announced by the products
-- they belong to, before and after (notify_products_changed). TG_ARGV[0]
-- names the column holding the product id.
CREATE OR REPLACE FUNCTION product_rows_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('SELECT ARRAY(SELECT %I FROM new_rows)', TG_ARGV[0]) INTO ids;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE format('SELECT ARRAY(SELECT %1$I FROM new_rows UNION SELECT %1$I FROM old_rows)', TG_ARGV[0]) INTO ids;
  ELSE
    EXECUTE format('SELECT ARRAY(SELECT %I FROM old_rows)', TG_ARGV[0]) INTO ids;
  END IF;
  PERFORM notify_products_changed(ids, 'updated');
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER features_notify_inserted AFTER INSERT ON "features" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER features_notify_updated AFTER UPDATE ON "features" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER features_notify_deleted AFTER DELETE ON "features" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER styles_notify_inserted AFTER INSERT ON "styles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER styles_notify_updated AFTER UPDATE ON "styles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER styles_notify_deleted AFTER DELETE ON "styles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('product_id');
CREATE OR REPLACE TRIGGER related_notify_inserted AFTER INSERT ON "related" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('current_product_id');
CREATE OR REPLACE TRIGGER related_notify_updated AFTER UPDATE ON "related" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('current_product_id');
CREATE OR REPLACE TRIGGER related_notify_deleted AFTER DELETE ON "related" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_rows_changed_notify('current_product_id');
