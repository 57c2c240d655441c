-- Photos and skus written: announced by the products of the styles they
-- belong to (notify_products_changed). A style deleted with its photos and
-- skus has announced its product already.
CREATE OR REPLACE FUNCTION style_media_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ids := ARRAY(SELECT s.product_id FROM new_rows r JOIN styles s ON s.id = r.style_id);
  ELSIF TG_OP = 'UPDATE' THEN
    ids := ARRAY(SELECT s.product_id FROM (SELECT style_id FROM new_rows UNION SELECT style_id FROM old_rows) r JOIN styles s ON s.id = r.style_id);
  ELSE
    ids := ARRAY(SELECT s.product_id FROM old_rows r JOIN styles s ON s.id = r.style_id);
  END IF;
  PERFORM notify_products_changed(ids, 'updated');
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER photos_notify_inserted AFTER INSERT ON "photos" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
CREATE OR REPLACE TRIGGER photos_notify_updated AFTER UPDATE ON "photos" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
CREATE OR REPLACE TRIGGER photos_notify_deleted AFTER DELETE ON "photos" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
CREATE OR REPLACE TRIGGER skus_notify_inserted AFTER INSERT ON "skus" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
CREATE OR REPLACE TRIGGER skus_notify_updated AFTER UPDATE ON "skus" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
CREATE OR REPLACE TRIGGER skus_notify_deleted AFTER DELETE ON "skus" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed_notify();
