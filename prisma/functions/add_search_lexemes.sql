-- Adds every lexeme of these search documents to the dictionary
-- (search_lexemes), which the search reads to correct misspelt words and to
-- expand a prefix into the words it completes to. Lexemes are added, never
-- removed: a stale one only ever suggests a word that matches nothing. New
-- lexemes start with documents = 0; a reload counts them.
CREATE OR REPLACE FUNCTION add_search_lexemes(documents tsvector[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO search_lexemes (lexeme)
  SELECT DISTINCT l FROM unnest(documents) d, unnest(tsvector_to_array(d)) l
  ORDER BY l
  ON CONFLICT DO NOTHING
$$;
