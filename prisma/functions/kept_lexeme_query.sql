-- A lexeme kept in search_word_facets as the tsquery its holders match: a
-- word as itself, a pair of words ('dress pant', rebuild_search_pair_facets)
-- as both its words. Each word quoted as one tsquery lexeme (backslashes and
-- quotes escaped). Used by the pairs' rebuild and by a search's counts
-- (src/catalog/browse/search-statements.ts, keptFacets).
CREATE OR REPLACE FUNCTION kept_lexeme_query(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg('''' || replace(replace(w, '\', '\\'), '''', '\''') || '''', ' & ')::tsquery
  FROM unnest(string_to_array(lexeme, ' ')) AS w
$$;
