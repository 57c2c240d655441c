-- A category page in every ordering from an index. Only price had one per
-- category ((category, price, product_id)); a category page by name, by
-- newest or by last updated walked the ordering's index over the whole
-- catalogue, keeping one row in twenty (a category), or sorted every product
-- of the category: up to 1.3 s for a page of slacks by name at full scale
-- (docs/browse.md, "Every ordering within a category"). With these the page
-- is the first rows of the category's range of the index.

-- CreateIndex
CREATE INDEX "product_browse_category_name_product_id_idx" ON "product_browse"("category", "name", "product_id");

-- CreateIndex
CREATE INDEX "product_browse_category_created_at_product_id_idx" ON "product_browse"("category", "created_at", "product_id");

-- CreateIndex
CREATE INDEX "product_browse_category_updated_at_product_id_idx" ON "product_browse"("category", "updated_at", "product_id");
