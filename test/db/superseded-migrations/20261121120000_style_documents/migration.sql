-- A read model for product pages: each product's styles, with their photos and
-- skus, as one JSON document. Product pages are the hot read; assembling the
-- document from styles/photos/skus costs Postgres ~4x more than fetching it by
-- primary key. The tables stay the source of truth: statement-level triggers
-- rebuild a product's document in the same transaction as any change to its
-- styles, photos or skus, so it is never stale. The loader (etl/load) builds
-- the documents of a new catalogue with the same function.

-- CreateTable
CREATE TABLE "product_style_documents" (
    "product_id" INTEGER NOT NULL,
    "styles" JSON NOT NULL,

    CONSTRAINT "product_style_documents_pkey" PRIMARY KEY ("product_id")
);

-- AddForeignKey
ALTER TABLE "product_style_documents" ADD CONSTRAINT "product_style_documents_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rebuilds the documents of the given products from styles, photos and skus.
-- Table names are unqualified on purpose: the loader runs it with its staging
-- schema first on the search_path. Prices are text so "140.00" stays "140.00".
CREATE FUNCTION refresh_product_style_documents(product_ids integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_style_documents WHERE product_id = ANY(product_ids);
  INSERT INTO product_style_documents (product_id, styles)
  SELECT s.product_id, json_agg(json_build_object(
      'id', s.id, 'productId', s.product_id, 'name', s.name,
      'salePrice', s.sale_price::text, 'originalPrice', s.original_price::text, 'isDefault', s.is_default,
      'photos', coalesce((SELECT json_agg(json_build_object('url', ph.url, 'thumbnailUrl', ph.thumbnail_url) ORDER BY ph.id)
                          FROM photos ph WHERE ph.style_id = s.id), '[]'::json),
      'skus', coalesce((SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
                        FROM skus k WHERE k.style_id = s.id), '[]'::json)
    ) ORDER BY s.id)
  FROM styles s
  WHERE s.product_id = ANY(product_ids) AND EXISTS (SELECT 1 FROM products p WHERE p.id = s.product_id)
  GROUP BY s.product_id;
END $$;

-- Triggers with transition tables can have one event each, hence three per table.
CREATE FUNCTION styles_changed() RETURNS trigger
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

-- Photos and skus: the products of the styles they belong to. A style deleted
-- with its photos has already refreshed its product's document.
CREATE FUNCTION style_media_changed() RETURNS trigger
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

CREATE TRIGGER styles_inserted AFTER INSERT ON "styles" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
CREATE TRIGGER styles_updated AFTER UPDATE ON "styles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
CREATE TRIGGER styles_deleted AFTER DELETE ON "styles" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION styles_changed();
CREATE TRIGGER photos_inserted AFTER INSERT ON "photos" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE TRIGGER photos_updated AFTER UPDATE ON "photos" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE TRIGGER photos_deleted AFTER DELETE ON "photos" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE TRIGGER skus_inserted AFTER INSERT ON "skus" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE TRIGGER skus_updated AFTER UPDATE ON "skus" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();
CREATE TRIGGER skus_deleted AFTER DELETE ON "skus" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION style_media_changed();

-- Documents for a catalogue that is already there.
SELECT refresh_product_style_documents(ARRAY(SELECT DISTINCT product_id FROM styles));
