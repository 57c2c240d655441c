-- A name's words as a search sees them, from the name's vector
-- (to_tsvector('english', name), which its caller computes once for this and
-- for the name's search vector): the stems in the order they stand, stop
-- words left out (as the search drops them from a query), and compounds,
-- addresses and numbers with punctuation left out too (a query is cut into
-- words at punctuation). Joined with spaces, it is the browse row's name_key
-- (the whole-name exactness rule); its adjacent pairs are the name's pair
-- lexemes (search_word_pairs: the proximity rule).
--
-- One row, set-returning on purpose: called in FROM, Postgres inlines it into
-- the calling query (a scalar SQL function with an aggregate is not inlined
-- and starts an executor on every call: a sixth of the browse rows' build).
CREATE OR REPLACE FUNCTION search_name_words(name tsvector) RETURNS SETOF text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
  SELECT coalesce(array_agg(v.lexeme ORDER BY p.position, v.lexeme), '{}')
  FROM unnest(name) AS v, unnest(v.positions) AS p(position)
  WHERE v.lexeme !~ '[-.@/_:+]'
$$;
