-- The catalogue's schema: tables, keys, indexes and foreign keys, as
-- prisma/schema.prisma declares them (test/db/drift.test.ts holds the two
-- together), plus what the schema cannot declare, each said where it is made.
-- The functions and triggers that keep the read models are not here: each is
-- one file of prisma/functions/, applied by the migration runner after the
-- migrations (src/db/server/migrate.ts).
--
-- A database migrated by the schema history this migration replaces is
-- recognised by the runner and recorded as having it, without running it
-- (src/db/server/baseline.ts): its schema is this one.

-- Trigram distance for typo correction (pg_trgm), edit distance to pick among
-- the nearest (fuzzystrmatch), and a btree column in the search GIN indexes
-- (btree_gin).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- A product's version (its strong ETag) is drawn from this sequence at every
-- write, and never reused. It is deliberately not OWNED BY the column: the
-- loader's `data:load --replace` drops and swaps the products table, and the
-- sequence must outlive it.
CREATE SEQUENCE "product_versions";

-- CreateTable
CREATE TABLE "products" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "slogan" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "default_price" DECIMAL(10,2) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "version" BIGINT NOT NULL DEFAULT nextval('product_versions'),

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "features" (
    "id" SERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "feature" TEXT NOT NULL,
    "value" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "features_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "styles" (
    "id" SERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "sale_price" DECIMAL(10,2),
    "original_price" DECIMAL(10,2) NOT NULL,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "styles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "photos" (
    "id" SERIAL NOT NULL,
    "style_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "thumbnail_url" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "photos_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skus" (
    "id" SERIAL NOT NULL,
    "style_id" INTEGER NOT NULL,
    "size" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "skus_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "related" (
    "id" SERIAL NOT NULL,
    "current_product_id" INTEGER NOT NULL,
    "related_product_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "related_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_runs" (
    "id" SERIAL NOT NULL,
    "source_dir" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "summary" JSONB,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "load_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_rejects" (
    "id" BIGSERIAL NOT NULL,
    "run_id" INTEGER NOT NULL,
    "file" TEXT NOT NULL,
    "line" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "raw" TEXT NOT NULL,

    CONSTRAINT "load_rejects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_style_documents" (
    "product_id" INTEGER NOT NULL,
    "styles" JSON NOT NULL,
    "default_style" JSON,

    CONSTRAINT "product_style_documents_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "rate_per_minute" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "product_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "legacy_sync_products" (
    "product_id" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "verified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "legacy_sync_products_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "legacy_sync_state" (
    "id" INTEGER NOT NULL,
    "cursor" INTEGER NOT NULL DEFAULT 0,
    "highest_id" INTEGER NOT NULL DEFAULT 0,
    "passes" INTEGER NOT NULL DEFAULT 0,
    "last_success_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "legacy_sync_state_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_browse" (
    "product_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "sizes" TEXT[] NOT NULL,
    "match_a" tsvector NOT NULL,
    "match_ab" tsvector NOT NULL,
    "match_abc" tsvector NOT NULL,
    "document" tsvector NOT NULL,
    "popularity" INTEGER NOT NULL,
    "name_key" TEXT NOT NULL,
    "search_order" BIGINT NOT NULL,
    "search_bucket" INTEGER NOT NULL,

    CONSTRAINT "product_browse_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "browse_facet_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "in_stock" BOOLEAN NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_facet_cells_pkey" PRIMARY KEY ("category","price","on_sale","in_stock")
);

-- CreateTable
CREATE TABLE "browse_size_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "size" TEXT NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_cells_pkey" PRIMARY KEY ("category","price","on_sale","size")
);

-- CreateTable
CREATE TABLE "search_lexemes" (
    "lexeme" TEXT NOT NULL,
    "documents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "search_lexemes_pkey" PRIMARY KEY ("lexeme")
);

-- CreateTable
CREATE TABLE "browse_size_sets" (
    "size_set" TEXT NOT NULL,
    "sizes" TEXT[] NOT NULL,

    CONSTRAINT "browse_size_sets_pkey" PRIMARY KEY ("size_set")
);

-- CreateTable
CREATE TABLE "browse_size_set_cells" (
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "size_set" TEXT NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_set_cells_pkey" PRIMARY KEY ("category","price","on_sale","size_set")
);

-- CreateTable
CREATE TABLE "product_detail_documents" (
    "product_id" INTEGER NOT NULL,
    "features" JSON NOT NULL,
    "related_ids" INTEGER[] NOT NULL,

    CONSTRAINT "product_detail_documents_pkey" PRIMARY KEY ("product_id")
);

-- CreateTable
CREATE TABLE "browse_size_pair_cells" (
    "size_a" TEXT NOT NULL,
    "size_b" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "price" DECIMAL(10,2) NOT NULL,
    "on_sale" BOOLEAN NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "browse_size_pair_cells_pkey" PRIMARY KEY ("size_a","size_b","category","price","on_sale")
);

-- CreateTable
CREATE TABLE "search_buckets" (
    "bucket" INTEGER NOT NULL,
    "search_order" BIGINT NOT NULL,

    CONSTRAINT "search_buckets_pkey" PRIMARY KEY ("bucket")
);

-- CreateTable
CREATE TABLE "search_word_facets" (
    "lexeme" TEXT NOT NULL,
    "facet" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "products" INTEGER NOT NULL,

    CONSTRAINT "search_word_facets_pkey" PRIMARY KEY ("lexeme","facet","value")
);

-- CreateTable
CREATE TABLE "search_name_pairs" (
    "pair" TEXT NOT NULL,

    CONSTRAINT "search_name_pairs_pkey" PRIMARY KEY ("pair")
);

-- CreateIndex
CREATE INDEX "features_product_id_idx" ON "features"("product_id");

-- CreateIndex
CREATE INDEX "styles_product_id_idx" ON "styles"("product_id");

-- CreateIndex
CREATE INDEX "photos_style_id_idx" ON "photos"("style_id");

-- CreateIndex
CREATE INDEX "skus_style_id_idx" ON "skus"("style_id");

-- CreateIndex
CREATE INDEX "related_current_product_id_idx" ON "related"("current_product_id");

-- CreateIndex
CREATE INDEX "related_related_product_id_idx" ON "related"("related_product_id");

-- CreateIndex
CREATE INDEX "load_rejects_run_id_idx" ON "load_rejects"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex: keyset pages in each ordering (ties by id), over the catalogue and within a category.
CREATE INDEX "product_browse_name_product_id_idx" ON "product_browse"("name", "product_id");
CREATE INDEX "product_browse_price_product_id_idx" ON "product_browse"("price", "product_id");
CREATE INDEX "product_browse_created_at_product_id_idx" ON "product_browse"("created_at", "product_id");
CREATE INDEX "product_browse_updated_at_product_id_idx" ON "product_browse"("updated_at", "product_id");
CREATE INDEX "product_browse_category_product_id_idx" ON "product_browse"("category", "product_id");
CREATE INDEX "product_browse_category_price_product_id_idx" ON "product_browse"("category", "price", "product_id");
CREATE INDEX "product_browse_category_name_product_id_idx" ON "product_browse"("category", "name", "product_id");
CREATE INDEX "product_browse_category_created_at_product_id_idx" ON "product_browse"("category", "created_at", "product_id");
CREATE INDEX "product_browse_category_updated_at_product_id_idx" ON "product_browse"("category", "updated_at", "product_id");

-- CreateIndex: search results in search_order, and the whole-name rule.
CREATE INDEX "product_browse_search_order_idx" ON "product_browse"("search_order");
CREATE INDEX "product_browse_name_key_idx" ON "product_browse"("name_key");

-- CreateIndex: the search tiers by run of search_order (btree_gin). Without
-- GIN's pending list (fastupdate = off), which every search would read whole
-- until a vacuum merged it (docs/browse.md); test/db/search-indexes.test.ts
-- checks every GIN index of the catalogue.
CREATE INDEX "product_browse_match_a_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_a") WITH (fastupdate = off);
CREATE INDEX "product_browse_match_ab_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_ab") WITH (fastupdate = off);
CREATE INDEX "product_browse_match_abc_search_idx" ON "product_browse" USING GIN ("search_bucket", "match_abc") WITH (fastupdate = off);
CREATE INDEX "product_browse_document_search_idx" ON "product_browse" USING GIN ("search_bucket", "document") WITH (fastupdate = off);

-- CreateIndex
CREATE INDEX "browse_size_cells_size_price_idx" ON "browse_size_cells"("size", "price");

-- CreateIndex: the typo lookup's nearest plain words (letters and digits, not
-- a bare number) by trigram distance (KNN needs GiST). Prisma's schema cannot
-- declare a partial index: the drift test lists it.
CREATE INDEX "search_lexemes_word_trgm_idx" ON "search_lexemes" USING GIST ("lexeme" gist_trgm_ops) WHERE lexeme ~ '^[[:alnum:]]+$' AND lexeme !~ '^[0-9]+$';

-- CreateIndex
CREATE UNIQUE INDEX "search_buckets_search_order_key" ON "search_buckets"("search_order");

-- AddForeignKey
ALTER TABLE "features" ADD CONSTRAINT "features_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "styles" ADD CONSTRAINT "styles_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "photos" ADD CONSTRAINT "photos_style_id_fkey" FOREIGN KEY ("style_id") REFERENCES "styles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skus" ADD CONSTRAINT "skus_style_id_fkey" FOREIGN KEY ("style_id") REFERENCES "styles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "related" ADD CONSTRAINT "related_current_product_id_fkey" FOREIGN KEY ("current_product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "related" ADD CONSTRAINT "related_related_product_id_fkey" FOREIGN KEY ("related_product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_rejects" ADD CONSTRAINT "load_rejects_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "load_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_style_documents" ADD CONSTRAINT "product_style_documents_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_browse" ADD CONSTRAINT "product_browse_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_detail_documents" ADD CONSTRAINT "product_detail_documents_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
