-- The counts kept for two common words together (search_word_facets rows
-- whose lexeme is a pair, 'dress pant'; docs/browse.md "Facets"): for every
-- pair of words that names hold side by side in at least from_documents
-- products (the dictionary's pair lexemes, search_lexemes), the products
-- holding both words anywhere in their search documents (so a search for the
-- two words is counted from them alone), per category, per size in stock,
-- per price and in total. Read through the documents' GIN index, one pair at
-- a time: the loader runs it once that index is built, after
-- rebuild_search_word_facets (which leaves pairs out).
CREATE OR REPLACE FUNCTION rebuild_search_pair_facets(from_documents integer DEFAULT 1000) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM search_word_facets WHERE strpos(lexeme, ' ') > 0;
  INSERT INTO search_word_facets (lexeme, facet, value, products)
  WITH pairs AS MATERIALIZED (
    SELECT l.lexeme, public.kept_lexeme_query(l.lexeme) AS both_words
    FROM search_lexemes l WHERE strpos(l.lexeme, ' ') > 0 AND l.documents >= from_documents
  ), holders AS MATERIALIZED (
    SELECT p.lexeme, b.category, b.price, b.sizes FROM pairs p CROSS JOIN LATERAL (
      SELECT b.category, b.price, b.sizes FROM product_browse b WHERE b.document @@ p.both_words) b
  )
  SELECT h.lexeme, 'total', '', count(*)::int FROM holders h GROUP BY h.lexeme
  UNION ALL
  SELECT h.lexeme, 'category', h.category, count(*)::int FROM holders h GROUP BY h.lexeme, h.category
  UNION ALL
  SELECT h.lexeme, 'price', h.price::text, count(*)::int FROM holders h GROUP BY h.lexeme, h.price
  UNION ALL
  SELECT h.lexeme, 'size', x.size, count(*)::int FROM holders h, unnest(h.sizes) AS x(size) GROUP BY h.lexeme, x.size;
$$;
