-- Each two adjacent words as one lexeme ('forest dress'), without
-- positions: added to a name's search vector, "the query's words next to
-- each other in the name" is a GIN lookup of the query's pairs. No
-- lexeme of to_tsvector holds a space, so a pair never meets a word.
-- One row, set-returning so that a call in FROM is inlined (search_name_words).
CREATE OR REPLACE FUNCTION search_word_pairs(words text[]) RETURNS SETOF tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
  SELECT array_to_tsvector(ARRAY(SELECT words[i] || ' ' || words[i + 1] FROM generate_series(1, cardinality(words) - 1) AS i))
$$;
