// The cost estimator (src/graphql/cost.ts) on the real schema, worked by hand:
// graphql-armor's formula (object 2, scalar 1, depth factor 1.5) where lists
// multiply by their size, taken from arguments (literal or variable) or from
// the documented assumptions.
import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { LIST_SIZES, UNKNOWN_LIST_SIZE, operationCost } from '../../src/graphql/cost.ts';
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
    expect(operationCost(schema, fixed, { id: '1' })).toBe(73);
    expect(operationCost(schema, fixed, { id: '2' })).toBe(73);
  });

  it('sizes a connection\'s edges by first (default 20), not its pageInfo', () => {
    // connection 2 + 1.5 × (edges 4 × 2 + 4 × (node 2 + 1.5 × 1) + pageInfo 2 + 1.5 × 1) = 40.25; operation 62.375
    expect(cost('{ productConnection(first: 4) { edges { node { id } } pageInfo { hasNextPage } } }')).toBe(63);
    expect(cost('query C($first: Int) { productConnection(first: $first) { edges { cursor } } }', { first: 4 }))
      .toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * (4 * 2 + 4 * 1))));
    expect(cost('{ productConnection { edges { cursor } } }')).toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * (20 * 2 + 20 * 1))));
  });

  it('assumes documented sizes for unbounded lists; related multiplies at every level', () => {
    expect(LIST_SIZES['Product.related']?.assumed).toBe(10);
    // related: 10 × 2 + 10 × 1 = 30; product 2 + 1.5 × 30 = 47; operation 2 + 1.5 × 47 = 72.5
    expect(cost('{ product(id: "1") { related { id } } }')).toBe(73);
    // another level: related 10 × 2 + 10 × (1 + 30) = 330; product 497; operation 747.5
    expect(cost('{ product(id: "1") { related { id related { id } } } }')).toBe(748);
    // skus 12, photos 5: styles 5 × 2 + 5 × (skus 36 + photos 15) = 265; product 399.5; operation 601.25
    expect(cost('{ product(id: "1") { styles { skus { size } photos { url } } } }')).toBe(602);
    // a scalar list: relatedIds 10 × 1
    expect(cost('{ product(id: "1") { relatedIds } }')).toBe(Math.ceil(2 + 1.5 * (2 + 1.5 * 10)));
  });

  it('counts fragments like the selections they stand for, at every spread', () => {
    const inline = cost('{ a: product(id: "1") { styles { name } } b: product(id: "2") { styles { name } } }');
    const spread = cost('{ a: product(id: "1") { ...S } b: product(id: "2") { ...S } } fragment S on Product { styles { name } }');
    const typed = cost('{ a: product(id: "1") { ... on Product { styles { name } } } b: product(id: "2") { styles { name } } }');
    expect(spread).toBe(inline);
    expect(typed).toBe(inline);
    expect(inline).toBe(Math.ceil(2 + 1.5 * 2 * (2 + 1.5 * (5 * 2 + 5 * 1))));
  });

  it('measures fragments that spread each other exponentially often in linear time', () => {
    // F0 spreads F1 twice, F1 spreads F2 twice, ...: 2^30 expanded copies of `id`.
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Product { ...F${i + 1} related { ...F${i + 1} } }`).join('\n');
    const started = performance.now();
    const value = cost(`{ product(id: "1") { ...F0 } } ${fragments} fragment F${levels} on Product { id }`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(value).toBeGreaterThan(1e30);
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
