-- The runs of search_order a search reads one at a time (search_buckets):
-- the first search_order of every 4,096 products of
-- the catalogue in that order (product_search_orders). The loader calls
-- it before it builds the browse rows, each of which then takes the run its
-- search_order falls in (refresh_product_browse). Products written later
-- join the run their order falls in, so runs grow until the next load.
-- Table names are unqualified on purpose (the loader's staging schema).
CREATE OR REPLACE FUNCTION rebuild_search_buckets() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM search_buckets;
  INSERT INTO search_buckets (bucket, search_order)
  SELECT (n - 1) / 4096, o FROM (
    SELECT search_order AS o, row_number() OVER (ORDER BY search_order) AS n FROM public.product_search_orders()
  ) y
  WHERE (n - 1) % 4096 = 0;
$$;
