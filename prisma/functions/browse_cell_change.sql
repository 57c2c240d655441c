-- A browse row as a facet cell change for move_browse_facet_cells: n is +1
-- for a row that appears, -1 for one that goes.
CREATE OR REPLACE FUNCTION browse_cell_change(category text, price numeric, on_sale boolean, sizes text[], n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('category', category, 'price', price, 'on_sale', on_sale, 'sizes', sizes, 'n', n)
$$;
