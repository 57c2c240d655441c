-- Facets of a filter on sizes read their sizes' cells through an index, not
-- all of browse_size_cells (9,512 rows at full scale, scanned up to three
-- times a statement: the category facet, the price facet and the total each
-- filter on the sizes, and the pair cells' formula reads two sizes' cells).
-- Size 7.5 under 60: 6.2 ms -> 2.8 ms; Heels in 7.5 or 8: 4.3 ms -> 1.7 ms
-- (medians of 25, full scale).

-- CreateIndex
CREATE INDEX "browse_size_cells_size_price_idx" ON "browse_size_cells"("size", "price");
