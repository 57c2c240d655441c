-- The runs of search_order a search reads one at a time (search_buckets):
-- the first search_order of every 4,096 products of
-- the catalogue in that order, from products and related. The loader calls
-- it before it builds the browse rows, each of which then takes the run its
-- search_order falls in (refresh_product_browse). Products written later
-- join the run their order falls in, so runs grow until the next load.
-- Table names are unqualified on purpose (the loader's staging schema).
CREATE OR REPLACE FUNCTION rebuild_search_buckets() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM search_buckets;
  INSERT INTO search_buckets (bucket, search_order)
  SELECT (n - 1) / 4096, o FROM (
    SELECT o, row_number() OVER (ORDER BY o) AS n FROM (
      SELECT public.search_order(coalesce(r.n, 0)::int, p.id) AS o
      FROM products p LEFT JOIN (SELECT related_product_id, count(*) AS n FROM related GROUP BY 1) r ON r.related_product_id = p.id
    ) x
  ) y
  WHERE (n - 1) % 4096 = 0;
$$;
