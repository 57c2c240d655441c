-- search_name_words takes the name's vector instead of the name, and it and
-- search_word_pairs become set-returning (one row) so that their callers'
-- queries inline them (prisma/functions): a changed signature or return type
-- is a new function, so the old ones go here and the function files create
-- the new ones.
DROP FUNCTION IF EXISTS search_name_words(text);
DROP FUNCTION IF EXISTS search_word_pairs(text[]);
