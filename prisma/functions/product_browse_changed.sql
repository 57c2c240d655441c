-- Browse rows written: the facet cells they move, the counts kept for common
-- words they move (only rows whose words or counted values changed), the
-- lexemes they add and the words they put together in a name.
-- Triggers with transition tables take one event each, hence three.
CREATE OR REPLACE FUNCTION product_browse_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(browse_cell_change(category, price, on_sale, sizes, 1)) FROM new_rows));
    PERFORM move_search_word_facets((SELECT jsonb_agg(search_word_change(document, category, price, sizes, 1)) FROM new_rows));
    PERFORM add_search_lexemes(ARRAY(SELECT document FROM new_rows));
    PERFORM add_search_name_pairs(ARRAY(SELECT DISTINCT name FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(c) FROM (
      SELECT browse_cell_change(category, price, on_sale, sizes, 1) AS c FROM new_rows
      UNION ALL
      SELECT browse_cell_change(category, price, on_sale, sizes, -1) FROM old_rows) changes));
    PERFORM move_search_word_facets((SELECT jsonb_agg(c.change) FROM new_rows n JOIN old_rows o USING (product_id),
      LATERAL (VALUES (search_word_change(n.document, n.category, n.price, n.sizes, 1)), (search_word_change(o.document, o.category, o.price, o.sizes, -1))) AS c(change)
      WHERE (n.document, n.category, n.price, n.sizes) IS DISTINCT FROM (o.document, o.category, o.price, o.sizes)));
    PERFORM add_search_lexemes(ARRAY(SELECT n.document FROM new_rows n JOIN old_rows o USING (product_id) WHERE n.document <> o.document));
    PERFORM add_search_name_pairs(ARRAY(SELECT DISTINCT n.name FROM new_rows n JOIN old_rows o USING (product_id) WHERE n.name <> o.name));
  ELSE
    PERFORM move_browse_facet_cells((SELECT jsonb_agg(browse_cell_change(category, price, on_sale, sizes, -1)) FROM old_rows));
    PERFORM move_search_word_facets((SELECT jsonb_agg(search_word_change(document, category, price, sizes, -1)) FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER product_browse_inserted AFTER INSERT ON "product_browse" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
CREATE OR REPLACE TRIGGER product_browse_updated AFTER UPDATE ON "product_browse" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
CREATE OR REPLACE TRIGGER product_browse_deleted AFTER DELETE ON "product_browse" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_browse_changed();
