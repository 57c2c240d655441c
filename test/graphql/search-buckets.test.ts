// A search reads each level of its results in tie-break order (search_order:
// popularity, then id): the tier's GIN index run by run (search_bucket, the
// runs of search_buckets), its first runs, then more runs when those found the
// level dense, then every match past the runs. The test catalogue is one
// run, so this file adds products and cuts the catalogue's order into many
// short runs, and checks that paging through a search crosses every stage in
// order, losing and repeating nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchProductsDocument, type SearchProductsQuery } from '../../src/generated/graphql/operations/graphql.ts';
import { SEARCH_BUCKETS } from '../../src/search/bucket-sort.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue);

/** A word no generated product has. */
const WORD = 'zorbly';
const COUNT = 48;

async function search(query: string, first: number, after?: string, filter?: Record<string, unknown>) {
  const response = await client.post(SearchProductsDocument, { query, first, after, filter });
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return (response.body.data as SearchProductsQuery).search;
}

async function searchAll(query: string, first: number, filter?: Record<string, unknown>) {
  const edges: SearchProductsQuery['search']['edges'] = [];
  let after: string | undefined;
  for (let page = 0; page < 200; page++) {
    const result = await search(query, first, after, filter);
    edges.push(...result.edges);
    if (!result.pageInfo.hasNextPage) return edges;
    after = result.pageInfo.endCursor!;
  }
  throw new Error('more than 200 pages');
}

describe('search levels read run by run', () => {
  /** Even k: the word in the name (the first tier); odd k: only in the description (the last). */
  const inName = (k: number) => k % 2 === 0;
  let ids: number[] = [];
  /** k of the products, by popularity (k % 4 related rows name it), then id: the tie-break. */
  let tieOrder: number[] = [];

  beforeAll(async () => {
    const values = Array.from({ length: COUNT }, (_, k) =>
      `('${inName(k) ? `Zorbly Parka ${k}` : `Plain Parka ${k}`}', 'A slogan', '${inName(k) ? 'Warm.' : `Warm, and zorbly ${k}.`}', '${k % 3 === 0 ? 'Jackets' : 'Coats'}', 50.00)`);
    ids = (await catalogue.direct.rows<{ id: number }>(`INSERT INTO products (name, slogan, description, category, default_price) VALUES ${values.join(', ')} RETURNING id`)).map((r) => r.id);
    await catalogue.direct.rows(`INSERT INTO related (current_product_id, related_product_id)
      SELECT 1, id FROM unnest($1::int[]) WITH ORDINALITY AS t(id, k), generate_series(1, (k - 1)::int % 4)`, [ids]);
    tieOrder = [...ids.keys()].sort((a, b) => (b % 4) - (a % 4) || ids[a]! - ids[b]!);
    // Runs of two products each over the whole catalogue, then every browse row takes its run again.
    await catalogue.direct.rows(`DELETE FROM search_buckets`);
    await catalogue.direct.rows(`INSERT INTO search_buckets (bucket, search_order)
      SELECT (n - 1) / 2, search_order FROM (SELECT search_order, row_number() OVER (ORDER BY search_order) AS n FROM product_browse) t WHERE (n - 1) % 2 = 0`);
    await catalogue.direct.rows(`SELECT refresh_product_browse(ARRAY(SELECT id FROM products))`);
  });

  it('spreads the products over more runs than a level reads before the rest', async () => {
    const [row] = await catalogue.direct.rows<{ runs: number }>(`SELECT count(DISTINCT search_bucket)::int AS runs FROM product_browse WHERE product_id = ANY($1)`, [ids]);
    expect(row!.runs).toBeGreaterThan(2 * SEARCH_BUCKETS);
  });

  const expected = () => [...tieOrder.filter(inName), ...tieOrder.filter((k) => !inName(k))].map((k) => ids[k]!);

  it.each([1, 3, 7, 20])('pages of %i: name matches then description matches, each most popular first, none lost or repeated', async (first) => {
    const edges = await searchAll(WORD, first);
    expect(edges.map((edge) => Number(edge.node.id))).toEqual(expected());
    const rankOf = (id: number) => edges.find((edge) => Number(edge.node.id) === id)!.rank;
    expect(new Set(ids.filter((_, k) => inName(k)).map(rankOf)).size).toBe(1);
    expect(rankOf(ids[0]!)).toBeGreaterThan(rankOf(ids[1]!));
  });

  it('filters inside every stage, and a two-word search crosses them too', async () => {
    const jackets = await searchAll(WORD, 4, { categories: ['Jackets'] });
    expect(jackets.map((edge) => Number(edge.node.id))).toEqual(expected().filter((id) => ids.indexOf(id) % 3 === 0));
    const pair = await searchAll(`parka ${WORD}`, 5);
    expect(new Set(pair.map((edge) => Number(edge.node.id)))).toEqual(new Set(ids));
    const ranks = pair.map((edge) => edge.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
  });

  it('pages through products whose ids are at the top of the int range', async () => {
    const top = 2 ** 31 - 1;
    const near = [top - 9000, top - 4097, top - 1, top];
    await catalogue.direct.rows(`INSERT INTO products (id, name, slogan, description, category, default_price)
      SELECT id, 'Quibbly Vest ' || id, 'A slogan', 'Warm.', 'Vests', 10.00 FROM unnest($1::int[]) AS id`, [near]);
    for (const first of [1, 2]) expect((await searchAll('quibbly', first)).map((edge) => Number(edge.node.id))).toEqual(near);
  });

  it('cuts a name match\'s snippet from its name, a description match\'s from every field', async () => {
    const { edges } = await search(WORD, 50);
    const byId = new Map(edges.map((edge) => [Number(edge.node.id), edge.snippet]));
    expect(byId.get(ids[0]!)).toMatch(/^«Zorbly» Parka/);
    expect(byId.get(ids[0]!)).not.toContain('Warm');
    expect(byId.get(ids[1]!)).toContain('Warm, and «zorbly»');
    expect(byId.get(ids[1]!)).toContain('A slogan');
  });
});
