-- A product written (created or updated): its browse row. A deleted
-- product's row goes with it (foreign key cascade).
CREATE OR REPLACE FUNCTION products_changed_browse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_product_browse(ARRAY(SELECT id FROM new_rows));
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_browse_inserted AFTER INSERT ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_browse();
CREATE OR REPLACE TRIGGER products_browse_updated AFTER UPDATE ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_changed_browse();
