-- The search indexes take every write straight into their trees.
--
-- GIN's default (fastupdate) parks a write's entries in a pending list that
-- every search then reads whole, until a vacuum or the list's 4 MB limit
-- merges it; each search statement scans these indexes many times (a level
-- and bucket each), so a few hundred product updates slowed every search
-- until autovacuum came by, which on a big table with few writes is rarely.
-- Writes barely notice: the index inserts are a small part of the browse
-- trigger's work on an update.
-- test/db/search-indexes.test.ts checks every GIN index of the catalogue.

-- Every GIN index of product_browse (the four search indexes today); the
-- ones a later migration adds say so in their own WITH clause.
DO $$
DECLARE index_name regclass;
BEGIN
  FOR index_name IN
    SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
    WHERE i.indrelid = 'product_browse'::regclass AND a.amname = 'gin'
  LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', index_name);
    -- Turning the list off does not merge what it already holds.
    PERFORM gin_clean_pending_list(index_name);
  END LOOP;
END $$;
