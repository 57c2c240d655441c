// The query-count contract's queries and what each costs (one SQL statement
// per relation level read, whatever the number of products): shared by
// test/graphql/query-count.test.ts and the same contract behind a
// transaction-mode pooler (test/db/pooler.test.ts).
import { DeepRelatedDocument, NestedProductsByIdsDocument, NestedProductsDocument, PagedNestedProductsDocument } from '../../src/generated/graphql/operations/graphql.ts';
import type { GraphQLResponse, TestCatalogue, TestClient } from '../support/catalogue-app.ts';

/**
 * `products(count: N) { features { feature } styles { photos { url } skus { size } } related { name styles { name } } }`
 * costs 5 statements, one per relation level:
 *   1 products page
 *   2 features of the page
 *   3 styles of the page, with their photos and skus embedded (one json_agg statement,
 *     chosen because the query selects photos/skus under styles)
 *   4 related rows of the page
 *   5 the related products (those not on the page) with their style documents in the
 *     same statement (chosen because the query selects styles under related)
 * `productsByIds` costs the same 5: the page query is replaced by one `id = ANY(...)` query.
 */
export const NESTED_STATEMENTS = 5;

/**
 * `productsByIds(ids) { related { related { related { name styles { skus { size } } } } } }` costs 7:
 *   1 the products by id
 *   2 related rows, level 1     3 related products, level 1
 *   4 related rows, level 2     5 related products, level 2
 *   6 related rows, level 3     7 related products, level 3, with their style documents
 */
export const DEEP_STATEMENTS = 7;

/**
 * Nested pages (test/graphql/nested-pages.graphql): `products(count: N) {
 * styles(first: 2) { photos { url } } related(first: 3) { name styles(first: 1) { name } } }`
 * costs 4, one per level, every page of a level in one statement (src/catalog/reads/nested-pages.ts):
 *   1 products page
 *   2 the style documents of the products (photos embedded), each paged to its first two styles
 *   3 the first three related products of each product (the products themselves, not their ids)
 *   4 the first style of each of those
 */
export const PAGED_STATEMENTS = 4;
export const PAGED_VARIABLES = { styles: 2, related: 3 };

export const SIZES = [1, 10, 50] as const;

/**
 * These contract queries are bigger than the default GraphQL limits let a client
 * send (docs/graphql.md "GraphQL limits"): DeepRelated is 7 fields deep (the limit is 6),
 * and 50 or more nested products cost more than 5,000 (DeepRelated with 100 ids:
 * 565,292, at the measured 4.45 related products per product). What is under
 * test here is the statement count, so this file's servers lift those two limits.
 */
export const CONTRACT_LIMITS = { GRAPHQL_MAX_DEPTH: '7', GRAPHQL_MAX_COST: '100000000' };

/**
 * The catalogue's related graph, to choose ids for which every level has work
 * to do. A level only issues a statement when some of its keys are not in the
 * request's loader caches yet (e.g. a product whose related products are all
 * already loaded needs no "related products" query), so with unlucky ids the
 * count can be lower than the number of levels, never higher. The tests pick ids
 * where each level brings new products, and check that precondition, so the
 * expected count is exactly one per level for 1, 10 and 50 ids alike.
 */
export interface Graph {
  productIds: number[];
  related: Map<number, number[]>;
  withStyles: Set<number>;
}

export function relatedOf(graph: Graph, ids: Iterable<number>): Set<number> {
  const out = new Set<number>();
  for (const id of ids) for (const r of graph.related.get(id) ?? []) out.add(r);
  return out;
}

function hasNew(level: Set<number>, seen: Set<number>): boolean {
  for (const id of level) if (!seen.has(id)) return true;
  return false;
}

/** Every level of DeepRelated needs a fetch for these roots. */
export function deepHasWorkAtEveryLevel(graph: Graph, roots: number[]): boolean {
  const seen = new Set(roots);
  let level = new Set(roots);
  for (let depth = 1; depth <= 3; depth++) {
    level = relatedOf(graph, level);
    if (!hasNew(level, seen)) return false;
    for (const id of level) seen.add(id);
  }
  return [...level].some((id) => graph.withStyles.has(id));
}

/** Every level of NestedProducts(ByIds) needs a fetch for these roots. */
export function nestedHasWorkAtEveryLevel(graph: Graph, roots: number[]): boolean {
  return roots.some((id) => graph.withStyles.has(id))
    && [...relatedOf(graph, roots)].some((id) => !roots.includes(id) && graph.withStyles.has(id));
}

/** Every level of PagedNestedProducts needs a fetch for these roots. */
export function pagedHasWorkAtEveryLevel(graph: Graph, roots: number[]): boolean {
  const exists = new Set(graph.productIds);
  const firstRelated = (id: number) => [...new Set(graph.related.get(id) ?? [])].filter((r) => exists.has(r)).slice(0, PAGED_VARIABLES.related);
  return roots.some((id) => graph.withStyles.has(id)) && roots.some((id) => firstRelated(id).some((r) => graph.withStyles.has(r)));
}

export async function readGraph(catalogue: TestCatalogue): Promise<Graph> {
  const products = await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id');
  const related = await catalogue.direct.rows<{ from: number; to: number }>(
    'SELECT current_product_id AS "from", related_product_id AS "to" FROM related ORDER BY id');
  const styled = await catalogue.direct.rows<{ id: number }>('SELECT DISTINCT product_id AS id FROM styles');
  const graph: Graph = { productIds: products.map((p) => p.id), related: new Map(), withStyles: new Set(styled.map((s) => s.id)) };
  for (const row of related) {
    const list = graph.related.get(row.from) ?? [];
    list.push(row.to);
    graph.related.set(row.from, list);
  }
  return graph;
}

/** Ids for NestedProductsByIds and DeepRelated, per size, for which every level has work to do. */
export interface ContractIds {
  nested: Map<number, string[]>;
  deep: Map<number, string[]>;
}

export function chooseIds(graph: Graph): ContractIds {
  const ids: ContractIds = { nested: new Map(), deep: new Map() };
  const deepCandidates = graph.productIds.filter((id) => deepHasWorkAtEveryLevel(graph, [id]));
  for (const size of SIZES) {
    // Ids spread over the catalogue (not only the first page), in no particular order.
    const step = Math.floor(graph.productIds.length / size);
    const spread = Array.from({ length: size }, (_, i) => graph.productIds[(i * step + 7) % graph.productIds.length] as number).reverse();
    ids.nested.set(size, spread.map(String));
    ids.deep.set(size, deepCandidates.slice(0, size).map(String));
  }
  return ids;
}

export interface ContractCase {
  name: string;
  statements: number;
  send(client: TestClient): Promise<GraphQLResponse>;
}

/** Every query of the contract, for 1, 10 and 50 products, with the statements it costs. */
export function contractCases(ids: () => ContractIds): ContractCase[] {
  return [
    ...SIZES.map((count) => ({ name: `products(count: ${count}) nested`, statements: NESTED_STATEMENTS, send: (c: TestClient) => c.post(NestedProductsDocument, { count }) as Promise<GraphQLResponse> })),
    ...SIZES.map((size) => ({ name: `productsByIds nested, ${size} ids`, statements: NESTED_STATEMENTS, send: (c: TestClient) => c.post(NestedProductsByIdsDocument, { ids: ids().nested.get(size) ?? [] }) as Promise<GraphQLResponse> })),
    ...SIZES.map((count) => ({ name: `paged products(count: ${count}) nested`, statements: PAGED_STATEMENTS, send: (c: TestClient) => c.post(PagedNestedProductsDocument, { count, ...PAGED_VARIABLES }) as Promise<GraphQLResponse> })),
    ...SIZES.map((size) => ({ name: `deep related, ${size} ids`, statements: DEEP_STATEMENTS, send: (c: TestClient) => c.post(DeepRelatedDocument, { ids: ids().deep.get(size) ?? [] }) as Promise<GraphQLResponse> })),
  ];
}
