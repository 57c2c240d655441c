-- Sidecar mode (docs/sidecar.md): what the sync worker last saw of each
-- product in the legacy service (the hash of its three answers, and the
-- local version it wrote: a product changed here since by anything else,
-- e.g. a data:load, no longer counts as verified), and where its crawl stands. No foreign key
-- to products: a product the legacy service deleted loses its row in the
-- same transaction that deletes it, and a data:load --replace swaps the
-- product tables.

-- CreateTable
CREATE TABLE "legacy_sync_products" (
    "product_id" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "verified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "legacy_sync_products_pkey" PRIMARY KEY ("product_id")
);

-- One row (id 1): the re-verification cursor (last product id verified in
-- the rolling window), the highest legacy id seen, and when the sync last
-- completed a successful legacy request.
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
