-- Products written: announced by their own id, created, updated or deleted
-- (notify_products_changed).
CREATE OR REPLACE FUNCTION products_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM notify_products_changed(ARRAY(SELECT id FROM new_rows), 'created');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM notify_products_changed(ARRAY(SELECT id FROM new_rows), 'updated');
  ELSE
    PERFORM notify_products_changed(ARRAY(SELECT id FROM old_rows), 'deleted');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_notify_inserted AFTER INSERT ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_notify();
CREATE OR REPLACE TRIGGER products_notify_updated AFTER UPDATE ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_notify();
CREATE OR REPLACE TRIGGER products_notify_deleted AFTER DELETE ON "products" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_notify();
