-- Search ranking rules (docs/browse.md, "Ranking"). Each browse row gains:
--   popularity     how many related rows name the product (the tie-break:
--                  products other products recommend most come first)
--   name_key       the name's words as searched (stems, in order, stop words
--                  and compounds left out): the whole-name exactness rule
--   search_order   popularity descending, then the id, as one number: the
--                  order of results the ranking rules leave tied
--   search_bucket  which run of about 4,096 products in search_order it is
--                  in (search_buckets: the first search_order of each run,
--                  as of the last load); the search indexes lead with it, so
--                  a search reads its matches a run at a time in that order
-- and match_a (so every tier's vector) gains the name's adjacent word pairs
-- as lexemes ('forest dress'): the proximity rule is an index lookup.
-- The search facets count matches (exactly up to a cap) instead of
-- estimating from a sample, so the sample index goes.
--
-- The rows of a catalogue already there are brought up to date here, with
-- this migration's own copy of the rules (prisma/functions holds the live
-- ones; a migration must not depend on code that changes after it).

-- Bulk index builds (the server's default spills to disk at full scale).
SET LOCAL maintenance_work_mem = '256MB';

-- The search indexes are built again below, after the rows are rewritten.
DROP INDEX "product_browse_match_a_bucket_idx";
DROP INDEX "product_browse_match_ab_bucket_idx";
DROP INDEX "product_browse_match_abc_bucket_idx";
DROP INDEX "product_browse_document_bucket_idx";
DROP INDEX "product_browse_document_sample_idx";

ALTER TABLE "product_browse"
  ADD COLUMN "popularity" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "name_key" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "search_order" BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "search_bucket" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "search_buckets" (
    "bucket" INTEGER NOT NULL,
    "search_order" BIGINT NOT NULL,

    CONSTRAINT "search_buckets_pkey" PRIMARY KEY ("bucket")
);

-- CreateIndex
CREATE UNIQUE INDEX "search_buckets_search_order_key" ON "search_buckets"("search_order");

CREATE FUNCTION pg_temp.name_words(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(v.lexeme ORDER BY p.position, v.lexeme), '{}')
  FROM unnest(to_tsvector('english', name)) AS v, unnest(v.positions) AS p(position)
  WHERE v.lexeme !~ '[-.@/_:+]'
$$;
CREATE FUNCTION pg_temp.word_pairs(words text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_to_tsvector(ARRAY(SELECT words[i] || ' ' || words[i + 1] FROM generate_series(1, cardinality(words) - 1) AS i))
$$;
CREATE FUNCTION pg_temp.search_order(popularity integer, product_id integer) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT (1048575 - least(greatest(popularity, 0), 1048575))::bigint * 4294967296 + product_id
$$;

INSERT INTO search_buckets (bucket, search_order)
SELECT (n - 1) / 4096, o FROM (
  SELECT o, row_number() OVER (ORDER BY o) AS n FROM (
    SELECT pg_temp.search_order(coalesce(r.n, 0)::int, b.product_id) AS o
    FROM product_browse b LEFT JOIN (SELECT related_product_id, count(*) AS n FROM related GROUP BY 1) r ON r.related_product_id = b.product_id
  ) x
) y
WHERE (n - 1) % 4096 = 0;

-- No facet cell moves (no filter value changes), and the dictionary gains the
-- pairs below: the row trigger would net a million rows' changes in one value.
ALTER TABLE "product_browse" DISABLE TRIGGER "product_browse_updated";

WITH names AS MATERIALIZED (
  SELECT name, w, pg_temp.word_pairs(w) AS pairs FROM (SELECT DISTINCT name FROM product_browse) t, LATERAL (SELECT pg_temp.name_words(t.name) AS w) x
), rows AS (
  SELECT b.product_id, coalesce(r.n, 0)::int AS popularity, n.w, n.pairs
  FROM product_browse b JOIN names n ON n.name = b.name
    LEFT JOIN (SELECT related_product_id, count(*) AS n FROM related GROUP BY 1) r ON r.related_product_id = b.product_id
)
UPDATE product_browse b SET
  popularity = rows.popularity,
  name_key = array_to_string(rows.w, ' '),
  search_order = pg_temp.search_order(rows.popularity, b.product_id),
  search_bucket = coalesce((SELECT s.bucket FROM search_buckets s WHERE s.search_order <= pg_temp.search_order(rows.popularity, b.product_id) ORDER BY s.search_order DESC LIMIT 1), 0),
  match_a = b.match_a || rows.pairs, match_ab = b.match_ab || rows.pairs, match_abc = b.match_abc || rows.pairs, document = b.document || rows.pairs
FROM rows WHERE rows.product_id = b.product_id;

ALTER TABLE "product_browse" ENABLE TRIGGER "product_browse_updated";

INSERT INTO search_lexemes (lexeme, documents)
SELECT pair, count(*) FROM product_browse b, pg_temp.name_words(b.name) AS w, unnest(ARRAY(
  SELECT w[i] || ' ' || w[i + 1] FROM generate_series(1, cardinality(w) - 1) AS i)) AS pair
GROUP BY pair
ON CONFLICT (lexeme) DO NOTHING;

ALTER TABLE "product_browse"
  ALTER COLUMN "popularity" DROP DEFAULT,
  ALTER COLUMN "name_key" DROP DEFAULT,
  ALTER COLUMN "search_order" DROP DEFAULT,
  ALTER COLUMN "search_bucket" DROP DEFAULT;

-- CreateIndex: results in search_order (the window of a search, and the keyset past a cursor); the whole name.
CREATE INDEX "product_browse_search_order_idx" ON "product_browse"("search_order");
CREATE INDEX "product_browse_name_key_idx" ON "product_browse"("name_key");
-- The search tiers, by run of search_order (btree_gin): GIN skips through the run and every word together.
CREATE INDEX "product_browse_match_a_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_a");
CREATE INDEX "product_browse_match_ab_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_ab");
CREATE INDEX "product_browse_match_abc_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_abc");
CREATE INDEX "product_browse_document_search_idx" ON "product_browse" USING GIN ("search_bucket", "document");
