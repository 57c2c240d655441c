// The cost estimator (src/graphql/cost.ts) on the real schema, worked by hand:
// graphql-armor's formula (object 2, scalar 1, depth factor 1.5) where lists
// multiply by their size, taken from arguments (literal or variable) or from
// the catalogue's measured cardinalities; and the docs/graphql.md's tables of those
// cardinalities and of what operations cost, held to the code.
import fs from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { CHEAP_READ_MAX_COST, LIST_SIZES, MEASURED_CARDINALITIES, STATEMENT_SURCHARGES, UNKNOWN_LIST_SIZE, isCheapRead, operationCost, readsByKey } from '../../src/graphql/cost.ts';
import { REST_READS_AS_GRAPHQL } from '../../src/rest/graphql-equivalents.ts';
import { operationsByName } from '../../k6/lib/operation-text.ts';
import { PRICE_BANDS } from '../../src/catalog/browse/browse-statements.ts';
import { readTypeDefs } from '../../src/graphql/schema.ts';

const schema = makeExecutableSchema({ typeDefs: readTypeDefs() });
const cost = (query: string, variables?: Record<string, unknown>, operationName?: string) => operationCost(schema, parse(query), variables, operationName);
const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

describe('operationCost', () => {
  it('is graphql-armor\'s cost when every list has one element', () => {
    // operation 2 + 1.5 × (productsByIds: 1 × 2 + 1.5 × (id 1 + name 1)) = 9.5, rounded up
    expect(cost('{ productsByIds(ids: ["1"]) { id name } }')).toBe(10);
    // single objects nest with the depth factor: 2 + 1.5 × (2 + 1.5 × (2 + 1.5 × 1)) = 12.875
    expect(cost('{ product(id: "1") { defaultStyle { id } } }')).toBe(13);
  });

  it('multiplies by count, with the schema default when it is omitted', () => {
    // 2 + 1.5 × (3 × 2 + 3 × 1) = 15.5
    expect(cost('{ products(count: 3) { id } }')).toBe(16);
    // count defaults to 5: 2 + 1.5 × (5 × 2 + 5 × 1) = 24.5
    expect(cost('{ products { id } }')).toBe(25);
    expect(cost('{ products(count: null) { id } }')).toBe(25);
  });

  it('takes list sizes from variables, and from variable defaults', () => {
    const query = 'query Page($count: Int) { products(count: $count) { id } }';
    expect(cost(query, { count: 3 })).toBe(16);
    expect(cost(query, { count: 300 })).toBe(2 + 1.5 * 900);
    expect(cost(query, {})).toBe(25);
    expect(cost('query Page($count: Int = 40) { products(count: $count) { id } }', {})).toBe(2 + 1.5 * 120);
    const byIds = 'query ByIds($ids: [ID!]!) { productsByIds(ids: $ids) { id } }';
    expect(cost(byIds, { ids: ids(40) })).toBe(2 + 1.5 * 120);
    // A single id for a list is a list of one, as execution coerces it.
    expect(cost(byIds, { ids: '7' })).toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * 1)));
  });

  it('costs a repeated document (Apollo reuses the parsed one) from each request\'s variables', () => {
    const document = parse('query Page($count: Int) { products(count: $count) { id } }');
    expect(operationCost(schema, document, { count: 3 })).toBe(16);
    expect(operationCost(schema, document, { count: 300 })).toBe(2 + 1.5 * 900);
    expect(operationCost(schema, document, { count: 3 })).toBe(16);
    const fixed = parse('query One($id: ID!) { product(id: $id) { related { id } } }');
    expect(operationCost(schema, fixed, { id: '1' })).toBe(36);
    expect(operationCost(schema, fixed, { id: '2' })).toBe(36);
  });

  it('sizes a connection\'s edges by first (default 20), not its pageInfo', () => {
    // connection 2 + 1.5 × (edges 4 × 2 + 4 × (node 2 + 1.5 × 1) + pageInfo 2 + 1.5 × 1) = 40.25; operation 62.375
    expect(cost('{ productConnection(first: 4) { edges { node { id } } pageInfo { hasNextPage } } }')).toBe(63);
    expect(cost('query C($first: Int) { productConnection(first: $first) { edges { cursor } } }', { first: 4 }))
      .toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * (4 * 2 + 4 * 1))));
    expect(cost('{ productConnection { edges { cursor } } }')).toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * (20 * 2 + 20 * 1))));
  });

  it('sizes unbounded lists by their measured averages; related multiplies at every level', () => {
    expect(LIST_SIZES['Product.related']?.assumed).toBe(4.45);
    // related: 4.45 × 2 + 4.45 × 1 = 13.35; product 2 + 1.5 × 13.35 = 22.025; operation 2 + 1.5 × 22.025 = 35.04
    expect(cost('{ product(id: "1") { related { id } } }')).toBe(36);
    // another level: related 4.45 × 2 + 4.45 × (1 + 13.35) = 72.76; product 111.14; operation 168.70
    expect(cost('{ product(id: "1") { related { id related { id } } } }')).toBe(169);
    // skus 5.78 × 3 = 17.34, photos 2.89 × 3 = 8.67: styles 1.96 × 2 + 1.96 × 26.01 = 54.90; product 84.35; operation 128.52
    expect(cost('{ product(id: "1") { styles { skus { size } photos { url } } } }')).toBe(129);
    // a scalar list: relatedIds 4.49 × 1 (its rows, duplicates and dangling ids included)
    expect(cost('{ product(id: "1") { relatedIds } }')).toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * 4.49)));
  });

  it('sizes a product\'s paged styles and related by first, up to their measured averages', () => {
    // related(first: 2): 2 × 2 + 2 × 1 = 6; product 2 + 1.5 × 6 = 11; operation 2 + 1.5 × 11 = 18.5
    expect(cost('{ product(id: "1") { related(first: 2) { id } } }')).toBe(19);
    expect(cost('query R($first: Int) { product(id: "1") { related(first: $first) { id } } }', { first: 2 })).toBe(19);
    // more than the average: the average (a product has no more to give on average)
    expect(cost('{ product(id: "1") { related(first: 100) { id } } }')).toBe(cost('{ product(id: "1") { related { id } } }'));
    // after alone does not bound the size
    expect(cost('{ product(id: "1") { related(after: "7") { id } } }')).toBe(cost('{ product(id: "1") { related { id } } }'));
    // styles(first: 1) under 20 products: 20 × (2 + 1.5 × (1 × 2 + 1.5 × (photos 2.89 × 3)))
    expect(cost('{ products(count: 20) { styles(first: 1) { photos { url } } } }'))
      .toBe(Math.ceil(2 + 1.5 * (20 * 2 + 20 * (1 * 2 + 1.5 * (2.89 * 2 + 2.89 * 1)))));
  });

  it('counts fragments like the selections they stand for, at every spread', () => {
    const inline = cost('{ a: product(id: "1") { styles { name } } b: product(id: "2") { styles { name } } }');
    const spread = cost('{ a: product(id: "1") { ...S } b: product(id: "2") { ...S } } fragment S on Product { styles { name } }');
    const typed = cost('{ a: product(id: "1") { ... on Product { styles { name } } } b: product(id: "2") { styles { name } } }');
    expect(spread).toBe(inline);
    expect(typed).toBe(inline);
    // styles 1.96 × 2 + 1.96 × 1 = 5.88; each product 2 + 1.5 × 5.88 = 10.82; operation 2 + 1.5 × 21.64 = 34.46
    expect(inline).toBe(35);
  });

  it('measures fragments that spread each other exponentially often in linear time', () => {
    // F0 spreads F1 twice, F1 spreads F2 twice, ...: 2^30 expanded copies of `id`.
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Product { ...F${i + 1} related { ...F${i + 1} } }`).join('\n');
    const started = performance.now();
    const value = cost(`{ product(id: "1") { ...F0 } } ${fragments} fragment F${levels} on Product { id }`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(value).toBeGreaterThan(1e20);
  });

  it('costs the named operation, mutations included; introspection\'s __schema is free', () => {
    const document = 'query Small { product(id: "1") { id } } query Big { products(count: 50) { id } }';
    expect(cost(document, {}, 'Small')).toBe(8);
    expect(cost(document, {}, 'Big')).toBe(2 + 1.5 * 150);
    expect(cost(document, {}, 'Missing')).toBe(0);
    expect(cost('mutation { deleteProduct(id: "1") }')).toBe(Math.ceil(2 + 1.5 * 1));
    expect(cost('{ __schema { types { name fields { name type { ofType { ofType { name } } } } } } }')).toBe(2);
    expect(cost('{ __typename }')).toBe(Math.ceil(2 + 1.5 * 1));
  });

  it('assumes UNKNOWN_LIST_SIZE for lists it has no rule for (__type\'s fields)', () => {
    expect(UNKNOWN_LIST_SIZE).toBe(10);
    // __type 2 + 1.5 × (fields 10 × 2 + 10 × 1) = 47; operation 72.5
    expect(cost('{ __type(name: "Product") { fields { name } } }')).toBe(73);
  });
});

/** The rows of the Markdown table whose header row is `header`, as trimmed cells. */
function markdownTable(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`no table with the header ${header} in docs/graphql.md`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const GRAPHQL_DOC = fs.readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8');

describe('measured cardinalities (docs/graphql.md "GraphQL limits")', () => {
  it('README\'s table shows exactly MEASURED_CARDINALITIES', () => {
    const rows = markdownTable(GRAPHQL_DOC, '| list | average | p50 | p99 | max |');
    const documented = Object.fromEntries(rows.map(([list = '', ...numbers]) => [
      list.replace(/`/g, ''), Object.fromEntries(['average', 'p50', 'p99', 'max'].map((column, i) => [column, Number(numbers[i])])),
    ]));
    expect(documented).toEqual(MEASURED_CARDINALITIES);
  });

  it('size every list that no argument bounds by its average, and a paged product list by `first` when that is smaller', () => {
    const paged = ['Product.related', 'Product.styles'];
    for (const [field, measured] of Object.entries(MEASURED_CARDINALITIES)) {
      expect(LIST_SIZES[field], field).toEqual(paged.includes(field) ? { argument: 'first', assumed: measured.average } : { assumed: measured.average });
    }
    const unbounded = Object.entries(LIST_SIZES).filter(([, size]) => size.argument === undefined).map(([field]) => field);
    // Facet lists are bounded by the catalogue's categories and sizes and by PRICE_BANDS.
    expect(LIST_SIZES['ProductFacets.priceBands']).toEqual({ assumed: PRICE_BANDS.length });
    expect(unbounded.sort()).toEqual([...Object.keys(MEASURED_CARDINALITIES).filter((field) => !paged.includes(field)), 'ProductFacets.categories', 'ProductFacets.sizes', 'ProductFacets.priceBands'].sort());
  });

  it('sizes search pages by first and charges browse statements their surcharge, totalCount and facets half each', () => {
    const page = '{ edges { node { id } } }';
    const plain = cost(`{ productConnection(first: 10) ${page} }`);
    expect(cost(`{ productConnection(first: 10, filter: { onSale: true }, orderBy: { field: PRICE, direction: DESC }) ${page} }`)).toBe(plain);
    expect(cost(`{ search(query: "camo", first: 10) ${page} }`)).toBe(plain + 1.5 * STATEMENT_SURCHARGES['Query.search']!);
    expect(cost(`{ productConnection(first: 10) { totalCount edges { node { id } } } }`)).toBe(plain + Math.ceil(1.5 * 1.5 * (25 + 1)));
    const facets = '{ total categories { value count } sizes { value count } priceBands { min max count } }';
    expect(cost(`{ productFacets ${facets} }`)).toBeGreaterThan(STATEMENT_SURCHARGES['Query.productFacets']!);
  });
});

const STYLE = 'id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity }';
const CARD = 'id name category defaultPrice styles { name originalPrice salePrice photos { thumbnailUrl } }';
const NESTED = 'id features { feature } styles { photos { url } skus { size } } related { name styles { name } }';
const LEGACY = `id name slogan description category defaultPrice features { feature value } styles { ${STYLE} } related { id name styles { name } }`;
const DETAILS = 'id name slogan description category defaultPrice features { feature value }';

/** What front ends send, and what the limit is for; by their row in docs/graphql.md's table of costs. */
const OPERATIONS: { row: string; query: string; variables?: Record<string, unknown>; admitted: boolean }[] = [
  { row: 'a product page with related cards', query: `{ product(id: "1") { ${DETAILS} styles { ${STYLE} } related { ${CARD} } } }`, admitted: true },
  {
    row: 'the same with k6\'s card',
    query: `{ product(id: "1") { ${DETAILS} styles { ${STYLE} } related { id name category defaultPrice defaultStyle { id originalPrice salePrice photos { thumbnailUrl } } } } }`,
    admitted: true,
  },
  { row: 'a product\'s styles with photos and skus', query: `{ product(id: "1") { id name defaultPrice styles { ${STYLE} } } }`, admitted: true },
  { row: 'a listing of 20 products with styles, photos and prices', query: '{ products(count: 20) { id name category defaultPrice styles { id name originalPrice salePrice photos { thumbnailUrl url } } } }', admitted: true },
  {
    row: 'a listing of 20 products with their first two styles (photos, prices) and three related cards',
    query: '{ products(count: 20) { id name styles(first: 2) { id name salePrice photos { thumbnailUrl } } related(first: 3) { id name defaultPrice } } }',
    admitted: true,
  },
  { row: 'the legacy-shaped nested listing', query: `{ products(count: 5) { ${LEGACY} } }`, admitted: true },
  { row: '`NestedProducts` (5)', query: `query N($count: Int!) { products(count: $count) { ${NESTED} } }`, variables: { count: 5 }, admitted: true },
  { row: 'the same for 20 products', query: `query N($count: Int!) { products(count: $count) { ${NESTED} } }`, variables: { count: 20 }, admitted: true },
  { row: '`products(count: 100) { id name }`', query: '{ products(count: 100) { id name } }', admitted: true },
  { row: '`productConnection(first: 100)` with cursors and page info', query: '{ productConnection(first: 100) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }', admitted: true },
  { row: '`product(id) { related { id related { id related { id } } } }`', query: '{ product(id: "1") { related { id related { id related { id } } } } }', admitted: true },
  { row: 'three levels of `related` with names and style names at the bottom', query: '{ product(id: "1") { related { id related { id related { id name styles { name } } } } } }', admitted: true },
  { row: 'four levels of `related`', query: '{ product(id: "1") { related { related { related { related { id } } } } } }', admitted: true },
  {
    row: 'three levels of `related` with names and style names from 10 products',
    query: 'query R($ids: [ID!]!) { productsByIds(ids: $ids) { id related { id related { id related { id name styles { name } } } } } }',
    variables: { ids: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] },
    admitted: false,
  },
  { row: '`NestedProducts` for 50 products', query: `query N($count: Int!) { products(count: $count) { ${NESTED} } }`, variables: { count: 50 }, admitted: false },
  { row: '`NestedProducts` for 100 products', query: `query N($count: Int!) { products(count: $count) { ${NESTED} } }`, variables: { count: 100 }, admitted: false },
  { row: 'the legacy-shaped listing of 100 products', query: `{ products(count: 100) { ${LEGACY} } }`, admitted: false },
  {
    row: '`productConnection(first: 100)` with features and skus',
    query: '{ productConnection(first: 100) { edges { cursor node { id features { feature } styles { skus { size } } } } pageInfo { hasNextPage endCursor } } }',
    admitted: false,
  },
  {
    row: '`DeepRelated` of the query-count contract',
    query: 'query D($ids: [ID!]!) { productsByIds(ids: $ids) { id related { id related { id related { id name styles { skus { size } } } } } } }',
    variables: { ids: ['1'] },
    admitted: false,
  },
];

/** The pages, listings and nested listings a front end really sends. */
const FRONT_END_ROWS = [
  'a product page with related cards', 'the same with k6\'s card', 'a listing of 20 products with styles, photos and prices', 'the legacy-shaped nested listing', '`NestedProducts` (5)',
];

describe('the default GRAPHQL_MAX_COST', () => {
  const limit = loadConfig({}).graphqlLimits.maxCost;
  const costs = new Map(OPERATIONS.map(({ row, query, variables }) => [row, cost(query, variables)]));

  it('admits what front ends send with at least twice the room they need', () => {
    for (const row of FRONT_END_ROWS) {
      expect(costs.get(row), row).toBeDefined();
      expect(2 * costs.get(row)!, row).toBeLessThanOrEqual(limit);
    }
  });

  it('refuses walks through related from many products, nested pages of 50 and more, DeepRelated', () => {
    for (const { row, admitted } of OPERATIONS) expect(costs.get(row)! <= limit, row).toBe(admitted);
  });

  it('is what README\'s table of operations says, row by row', () => {
    const rows = markdownTable(GRAPHQL_DOC, '| operation | before (worst-case sizes) | now |');
    for (const { row, admitted } of OPERATIONS) {
      const found = rows.filter(([operation = '']) => operation.startsWith(row));
      expect(found, row).toHaveLength(1);
      const now = found[0]![2]!;
      expect(now.replace(/,/g, ''), row).toMatch(new RegExp(`^${costs.get(row)}\\b`));
      expect(now.endsWith(': refused'), row).toBe(!admitted);
    }
  });
});

describe('the legacy listing defaults', () => {
  it('are the GraphQL products arguments\' defaults too (one definition: src/catalog/reads/listing-anchors.ts)', async () => {
    const { buildSchema } = await import('graphql');
    const { readTypeDefs } = await import('../../src/graphql/schema.ts');
    const { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } = await import('../../src/catalog/reads/listing-anchors.ts');
    const products = buildSchema(readTypeDefs()).getQueryType()!.getFields().products!;
    const defaults = Object.fromEntries(products.args.map((arg) => [arg.name, arg.defaultValue]));
    expect(defaults).toEqual({ page: DEFAULT_PAGE, count: DEFAULT_PAGE_SIZE });
  });
});

describe('cheap reads (the response cache\'s doorkeeper: CHEAP_READ_MAX_COST)', () => {
  const operations = operationsByName(fs.readFileSync(new URL('../../k6/operations.graphql', import.meta.url), 'utf8'));
  const cheap = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query);
    return isCheapRead(readsByKey(document, getOperationAST(document)!), operationCost(schema, document, variables));
  };

  it('are product pages read by id, and the REST product routes by their GraphQL equivalents', () => {
    for (const name of ['ProductWithStyles', 'ProductPageWithRelatedIds', 'ProductDetailPage']) expect(cheap(operations.get(name)!, { id: '5' }), name).toBe(true);
    expect(cheap('{ ... on Query { product(id: "1") { id } } __typename }')).toBe(true);
    for (const read of ['detail', 'styles', 'related'] as const) expect(cheap(REST_READS_AS_GRAPHQL[read]), read).toBe(true);
  });

  it('are never listings, category pages, searches or facets, however little they select; nor a keyed read costing more than the threshold', () => {
    expect(cheap(REST_READS_AS_GRAPHQL.list)).toBe(false);
    for (const name of ['ProductListingPage', 'CategoryPage', 'SearchPage', 'ShopFacets']) expect(cheap(operations.get(name)!, { page: 1, count: 5, query: 'shirt', first: 20 }), name).toBe(false);
    expect(cheap('{ productFacets(query: "shirt") { total } }')).toBe(false);
    expect(cheap('{ productConnection(first: 1) { edges { node { id } } } }')).toBe(false);
    expect(cheap('fragment F on Query { search(query: "x", first: 1) { searched } } { product(id: "1") { id } ...F }')).toBe(false);
    const many = `{ productsByIds(ids: ${JSON.stringify(ids(60))}) { id name related { id name } } }`;
    expect(operationCost(schema, parse(many))).toBeGreaterThan(CHEAP_READ_MAX_COST);
    expect(cheap(many)).toBe(false);
  });
});
