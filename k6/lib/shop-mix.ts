// The mix of the legacy shop's page views. No k6 or Node imports: the k6
// scripts (./shop.ts) and the topology test's page load
// (bench/lib/topology/page-load.ts) both send it.

/** Share of page views that are product pages; the rest are listing pages. */
export const PRODUCT_PAGE_SHARE = 0.7;
/** Products per listing page. */
export const LISTING_COUNT = 5;
