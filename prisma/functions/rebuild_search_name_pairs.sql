-- The dictionary of words found together in a name (search_name_pairs) of a
-- whole catalogue, from its browse rows' names, each distinct name once
-- (the loader calls it after building them; table names unqualified: the
-- loader runs it with its staging schema alone on the search_path).
CREATE OR REPLACE FUNCTION rebuild_search_name_pairs() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM search_name_pairs;
  SELECT public.add_search_name_pairs(ARRAY(SELECT name FROM product_browse GROUP BY name));
$$;

-- A catalogue whose browse rows were built before the dictionary existed
-- gets it here, once: an empty
-- dictionary beside browse rows would tell every search that no name holds
-- two of its words.
SELECT rebuild_search_name_pairs() WHERE NOT EXISTS (SELECT 1 FROM search_name_pairs) AND EXISTS (SELECT 1 FROM product_browse);
