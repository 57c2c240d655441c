-- Photos and skus written: the style documents of the products of the
-- styles they belong to. A style deleted with its photos has already
-- refreshed its product's document.
CREATE OR REPLACE FUNCTION style_media_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM refresh_product_style_documents(ARRAY(
      SELECT DISTINCT s.product_id FROM new_rows r JOIN styles s ON s.id = r.style_id));
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_product_style_documents(ARRAY(
      SELECT DISTINCT s.product_id FROM old_rows r JOIN styles s ON s.id = r.style_id));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER photos_inserted AFTER INSERT ON "photos" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE OR REPLACE TRIGGER photos_updated AFTER UPDATE ON "photos" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE OR REPLACE TRIGGER photos_deleted AFTER DELETE ON "photos" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE OR REPLACE TRIGGER skus_inserted AFTER INSERT ON "skus" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE OR REPLACE TRIGGER skus_updated AFTER UPDATE ON "skus" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE OR REPLACE TRIGGER skus_deleted AFTER DELETE ON "skus" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
