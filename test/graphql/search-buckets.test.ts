// Search reads each rank tier in id order: a window of products one by one,
// then the tier's GIN index bucket by bucket (product_id / SEARCH_BUCKET),
// then every match past the buckets. The generated test catalogue fits in
// one bucket, so this file adds products with ids spread over dozens of
// buckets and checks that paging through a search crosses every stage in
// order, losing and repeating nothing, and that the constant agrees with the
// indexes' expression.
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchProductsDocument, type SearchProductsQuery } from '../../src/generated/graphql/operations/graphql.ts';
import { SEARCH_BUCKET, SEARCH_BUCKETS, SEARCH_TIERS, SEARCH_WINDOW } from '../../src/catalog/browse-statements.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue);

/** A word no generated product has. */
const WORD = 'zorbly';
/** Far past the generated products, across 4 times as many buckets as a tier reads one by one. */
const FIRST_ID = 5 * SEARCH_BUCKET + 17;
const COUNT = 48;
const idOf = (k: number) => FIRST_ID + Math.floor((k * SEARCH_BUCKETS * 4 * SEARCH_BUCKET) / COUNT) + (k % 5);

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

describe('search tiers read bucket by bucket', () => {
  /** Even k: the word in the name (first tier); odd k: only in the description (last tier). */
  const inName = (k: number) => k % 2 === 0;
  const ids = Array.from({ length: COUNT }, (_, k) => idOf(k));

  beforeAll(async () => {
    const values = ids.map((id, k) => `(${id}, '${inName(k) ? `Zorbly Parka ${k}` : `Plain Parka ${k}`}', 'A slogan', '${inName(k) ? 'Warm.' : `Warm, and zorbly ${k}.`}', '${k % 3 === 0 ? 'Jackets' : 'Coats'}', 50.00)`);
    await catalogue.direct.rows(`INSERT INTO products (id, name, slogan, description, category, default_price) VALUES ${values.join(', ')}`);
  });

  it('has the bucket size of the tier indexes', async () => {
    const rows = await catalogue.direct.rows<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'product_browse' AND indexdef LIKE '%USING gin%' ORDER BY indexname`);
    for (const tier of SEARCH_TIERS) {
      const index = rows.find((row) => new RegExp(`\\(\\(\\(product_id / ${SEARCH_BUCKET}\\)\\), ${tier.column}\\)$`).test(row.indexdef));
      expect(index, `a GIN index on ((product_id / ${SEARCH_BUCKET}), ${tier.column}) among ${JSON.stringify(rows)}`).toBeDefined();
    }
    // The products span the window, the buckets read one by one, and past them.
    expect(ids.at(-1)! - ids[0]!).toBeGreaterThan(SEARCH_BUCKETS * SEARCH_BUCKET);
    expect(COUNT).toBeLessThan(SEARCH_WINDOW);
  });

  it.each([1, 3, 7, 20])('pages of %i: name matches then description matches, each in id order, none lost or repeated', async (first) => {
    const edges = await searchAll(WORD, first);
    const expected = [...ids.filter((_, k) => inName(k)), ...ids.filter((_, k) => !inName(k))];
    expect(edges.map((edge) => Number(edge.node.id))).toEqual(expected);
    expect(edges.map((edge) => edge.rank)).toEqual(expected.map((id) => (inName(ids.indexOf(id)) ? SEARCH_TIERS[0].rank : SEARCH_TIERS[3].rank)));
  });

  it('filters inside every stage, and a two-word search crosses them too', async () => {
    const jackets = await searchAll(WORD, 4, { categories: ['Jackets'] });
    expect(jackets.map((edge) => Number(edge.node.id))).toEqual([
      ...ids.filter((_, k) => inName(k) && k % 3 === 0), ...ids.filter((_, k) => !inName(k) && k % 3 === 0),
    ]);
    const pair = await searchAll(`parka ${WORD}`, 5);
    expect(pair.map((edge) => Number(edge.node.id))).toEqual([...ids.filter((_, k) => inName(k)), ...ids.filter((_, k) => !inName(k))]);
  });

  it('pages through products whose ids are in the last buckets of the int range', async () => {
    const top = 2 ** 31 - 1;
    const near = [top - 8 * SEARCH_BUCKET - 1, top - 8 * SEARCH_BUCKET, top - SEARCH_BUCKET, top - 1, top];
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
