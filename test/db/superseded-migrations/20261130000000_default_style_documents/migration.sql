-- A product card shows its default style (prices, photos), and a page of
-- cards read every style document whole: Node parsed every style of every
-- product on the page (JSON.parse of the documents was most of a category
-- page's Node CPU at full scale). Each document now carries its default
-- style beside it, the element the Product.defaultStyle resolver picks (the
-- style marked default, else the first, else none), as a stored generated
-- column: Postgres computes it whenever the document is written, by the
-- triggers or the loader, so it can never disagree with the document.
-- A category page at full scale: 1,302-1,411 -> 1,586-1,698 requests/s,
-- Node 684-759 -> 542-595 us a request (docs/browse.md).

CREATE FUNCTION default_style_document(styles json) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce((SELECT style FROM json_array_elements(styles) AS style WHERE (style ->> 'isDefault')::boolean LIMIT 1), styles -> 0)
$$;

-- AlterTable
ALTER TABLE "product_style_documents" ADD COLUMN "default_style" JSON GENERATED ALWAYS AS (default_style_document("styles")) STORED;
