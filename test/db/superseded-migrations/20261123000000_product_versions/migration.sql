-- Every product carries a version: a number taken from one sequence at each
-- write (create, update, feature replacement), so it changes whenever the
-- product's REST representation does and is never reused, not even after a
-- `data:load --replace` (the loaded rows draw fresh numbers from the same
-- sequence: the staging tables copy this default). It is the product's strong
-- ETag and the version optimistic writers send back (If-Match, expectedVersion).
-- The sequence is deliberately not OWNED BY the column: the ETL's swap drops
-- and replaces the products table, and the sequence must outlive it.
CREATE SEQUENCE "product_versions";

ALTER TABLE "products" ADD COLUMN "version" BIGINT NOT NULL DEFAULT nextval('product_versions');
