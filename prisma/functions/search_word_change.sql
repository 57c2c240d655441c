-- A browse row as a change of the counts kept for common words, for
-- move_search_word_facets: n is +1 for a row that appears, -1 for one that goes.
CREATE OR REPLACE FUNCTION search_word_change(document tsvector, category text, price numeric, sizes text[], n int) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('lexemes', tsvector_to_array(document), 'category', category, 'price', price, 'sizes', sizes, 'n', n)
$$;
