-- A name's words as a search sees them: the stems of to_tsvector('english')
-- in the order they stand, stop words left out (as the search drops them
-- from a query), and compounds, addresses and numbers with punctuation
-- left out too (a query is cut into words at punctuation). Joined with
-- spaces, it is the browse row's name_key (the whole-name exactness rule);
-- its adjacent pairs are the name's pair lexemes (search_word_pairs: the
-- proximity rule).
CREATE OR REPLACE FUNCTION search_name_words(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(v.lexeme ORDER BY p.position, v.lexeme), '{}')
  FROM unnest(to_tsvector('english', name)) AS v, unnest(v.positions) AS p(position)
  WHERE v.lexeme !~ '[-.@/_:+]'
$$;
