-- Search pages read each rank tier in id order. A tier whose words were
-- rarer than its first window (5,000 products read one by one) asked its GIN
-- index for every match in the catalogue and sorted them: "vintage hoodie"
-- read 5,000 rows and then intersected two posting lists of 31,000 and
-- 41,000 products to keep 21 of 1,235 matches. Each tier's index now leads
-- with the product's bucket of ids (product_id / 4096, btree_gin), so a
-- search asks for the matches in one bucket at a time, in id order: GIN
-- skips through the bucket and every word together, 0.06-0.1 ms a bucket at
-- full scale. SEARCH_BUCKET in src/catalog/browse-statements.ts is this
-- 4096 (test/graphql/search-buckets.test.ts checks they agree). A condition
-- on the words alone still uses these indexes (GIN answers any subset of
-- its columns), so they replace the four plain ones.
CREATE EXTENSION IF NOT EXISTS btree_gin;

DROP INDEX "product_browse_match_a_idx";
DROP INDEX "product_browse_match_ab_idx";
DROP INDEX "product_browse_match_abc_idx";
DROP INDEX "product_browse_document_idx";

CREATE INDEX "product_browse_match_a_bucket_idx" ON "product_browse" USING GIN ((product_id / 4096), "match_a");
CREATE INDEX "product_browse_match_ab_bucket_idx" ON "product_browse" USING GIN ((product_id / 4096), "match_ab");
CREATE INDEX "product_browse_match_abc_bucket_idx" ON "product_browse" USING GIN ((product_id / 4096), "match_abc");
CREATE INDEX "product_browse_document_bucket_idx" ON "product_browse" USING GIN ((product_id / 4096), "document");
