// Pages of a product's own lists (its styles, its related products) for any
// number of products in ONE statement: `styles(first: 2)` on each of the 20
// products of a page is one round trip, not 20 (the N+1 that DataLoader users
// meet as soon as a nested list takes arguments).
//
// Each page is a key (product, first, after): the keys travel as three
// parallel arrays, unnested WITH ORDINALITY (the statements are queries.ts's
// NESTED_PAGES, with every other read), and a LATERAL subquery reads
// each key's page with its own LIMIT through the parent's index (a window
// function, row_number() OVER (PARTITION BY product_id), would read every
// child of every parent before filtering; LATERAL stops at `first`). Each row
// comes back with its key's ordinal, so keys that ask the same product for
// different pages (aliases) are answered apart in the same statement.
//
// Styles with photos or skus are the exception: they come from each product's
// style document (one JSON row a product, at most 4 styles), which Postgres
// reads whole in 0.02 ms for 20 products and pages with json_array_elements
// in 0.30 ms; so those documents are read whole (the existing statement) and
// paged here by pageOfList, by the same rule.
//
// Orders and cursors are the unpaged fields' (schema/products.graphql):
// styles in style id order, after a style id; related products in related-row
// order without duplicates or missing products, after a related product's id
// (its first related row). Not merged with other requests' statements
// (src/db/reads/coalesced-reads.ts merges single int keys only).

/** One page of one product's list: `first` items (all when null) after the item with id `after` (from the start when null). */
export interface PageKey {
  productId: number;
  first: number | null;
  after: number | null;
}

/** DataLoader's cache key of a page: the arguments are part of it, so two pages of one product are two entries. */
export const pageCacheKey = ({ productId, first, after }: PageKey): string => `${productId}:${first ?? ''}:${after ?? ''}`;

/** The keys as the statements' three parameters. */
export function pageParameters(keys: readonly PageKey[]): [number[], (number | null)[], (number | null)[]] {
  return [keys.map((k) => k.productId), keys.map((k) => k.first), keys.map((k) => k.after)];
}

/** A row of a page statement (queries.ts NESTED_PAGES): the 1-based position of its key, and what the row is. */
export type PageRow<Row> = Row & { pageKey: number };

/** Rows grouped by their key (without it), one list per key in key order. */
export function groupByPageKey<Row extends object>(rows: PageRow<Row>[], keyCount: number): Row[][] {
  const pages: Row[][] = Array.from({ length: keyCount }, () => []);
  for (const { pageKey, ...row } of rows) pages[pageKey - 1]?.push(row as unknown as Row);
  return pages;
}

/**
 * The page of a list already read whole, by the same rule as the statements:
 * styles with their photos and skus, whose per-product document Postgres
 * reads whole faster than it pages it (above; docs/graphql.md "Nested paging").
 */
export function pageOfList<T extends { id: number }>(list: readonly T[], first: number | null, after: number | null): T[] {
  const start = after === null ? 0 : list.findIndex((item) => item.id > after);
  if (start < 0) return [];
  return list.slice(start, first === null ? undefined : start + first);
}
