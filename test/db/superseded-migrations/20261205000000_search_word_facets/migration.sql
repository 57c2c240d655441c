-- The counts of a search for one common word, kept whole: per word of the
-- search documents (lexeme) that `npm run data:load` found in enough
-- products (prisma/functions/rebuild_search_word_facets.sql), how
-- many browse rows hold it per category, per size in stock, per price, and
-- in total (facet 'total', value ''; that row also marks the word as kept).
-- Built by rebuild_search_word_facets, moved by product_browse's trigger
-- (move_search_word_facets); empty until the next load on a catalogue
-- migrated to it (searches are then counted from their matches, as before).
CREATE TABLE search_word_facets (
  lexeme   text    NOT NULL,
  facet    text    NOT NULL,
  value    text    NOT NULL,
  products integer NOT NULL,
  CONSTRAINT search_word_facets_pkey PRIMARY KEY (lexeme, facet, value)
);
