-- Every product's place in the tie-break order of search results
-- (search_order: the most popular first, then the lowest id), from products
-- and related. rebuild_search_buckets cuts it into runs; the loader builds
-- the browse rows in this order, so that a run's rows lie together in the
-- table and a run's GIN scan walks only that stretch of the words' postings
-- (src/etl/load/load.ts). Table names are unqualified on purpose (the
-- loader's staging schema).
CREATE OR REPLACE FUNCTION product_search_orders() RETURNS TABLE (product_id integer, search_order bigint)
LANGUAGE sql STABLE AS $$
  SELECT p.id, public.search_order(coalesce(r.n, 0)::int, p.id)
  FROM products p LEFT JOIN (SELECT related_product_id, count(*) AS n FROM related GROUP BY 1) r ON r.related_product_id = p.id
$$;
