-- The counts kept for a name's word pair ('dress pant') now count the
-- products holding both words anywhere in their documents
-- (prisma/functions/rebuild_search_pair_facets.sql), not those whose name
-- holds them side by side: the rows counted the old way go, and a catalogue
-- keeps pairs again from its next `npm run data:load` (its two-word searches
-- are counted from their matches meanwhile). The words' own rows stay.
DELETE FROM search_word_facets WHERE strpos(lexeme, ' ') > 0;
