-- The order of search results the ranking rules leave tied (the tie-break,
-- docs/browse.md "Ranking"): the most popular first (popularity: how many
-- related rows name the product), then the lowest id, as one number that
-- sorts ascending. Popularity past 2^20 - 1 counts as 2^20 - 1.
CREATE OR REPLACE FUNCTION search_order(popularity integer, product_id integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (1048575 - least(greatest(popularity, 0), 1048575))::bigint * 4294967296 + product_id
$$;
