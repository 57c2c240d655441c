// GraphQL abuse limits against the real server: each limit refuses with HTTP
// 400, a code naming it and a message saying by how much, before any SQL runs;
// just under each limit the query is answered. List sizes given as variables
// count like literals. Config overrides move every limit. Also: caps on list
// arguments, no HTTP batching, field suggestions and introspection off outside
// development (configurable).
import { makeExecutableSchema } from '@graphql-tools/schema';
import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { operationCost } from '../../src/graphql/cost.ts';
import { EXAMPLE_QUERY } from '../../src/graphql/ide.ts';
import { operationShape } from '../../src/graphql/limits/operation-shape.ts';
import { readTypeDefs } from '../../src/graphql/schema.ts';
import { loadTrustedDocuments } from '../../src/graphql/trusted-documents.ts';
import { NestedProductsByIdsDocument, NestedProductsDocument } from '../../src/generated/graphql/operations/graphql.ts';
import { useTestCatalogue, useTestClient, type GraphQLResponse, type TestClient } from '../support/catalogue-app.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

/** The one error of a refusal by a limit, and proof that nothing was read. */
function expectRefused(response: GraphQLResponse, code: string, what: string, actual: number, limit: number): void {
  expect(response.status, response.raw).toBe(400);
  expect(response.body).toEqual({
    errors: [{ message: `${what} ${actual} exceeds the limit of ${limit} (by ${actual - limit})`, extensions: { code, limit, actual } }],
  });
  expect(response.statements).toBe(0);
}

function expectAnswered(response: GraphQLResponse): void {
  expect(response.status, response.raw).toBe(200);
  expect(response.body.errors, response.raw).toBeUndefined();
  expect(response.body.data).toBeTruthy();
}

function expectBadInput(response: GraphQLResponse, message: string, field: string): void {
  expect(response.status, response.raw).toBe(400);
  expect(response.body.errors).toEqual([{ message, extensions: { code: 'BAD_USER_INPUT', field } }]);
  expect(response.statements).toBe(0);
}

/** `{ product(id: "1") { product(id) ... } }`-style nesting: product > styles > product > ... to `depth` fields. */
function nested(depth: number): string {
  const levels = Array.from({ length: depth - 2 }, (_, i) => (i % 2 === 0 ? 'styles' : 'product'));
  return `{ product(id: "1") { ${levels.join(' { ')} { id }${' }'.repeat(levels.length)} }`;
}

const SCALARS = ['id', 'name', 'slogan', 'description', 'category', 'defaultPrice', 'createdAt', 'updatedAt'];

/**
 * A document of exactly `tokens` tokens: `{ product(id: "1") { id name ... } }` is 10 tokens plus one per field.
 * The fields take turns: a thousand copies of one field would make graphql-js's own
 * field-merging check give up ("Validation aborted.", its quadratic-work guard).
 */
function ofTokens(tokens: number): string {
  return `{ product(id: "1") { ${Array.from({ length: tokens - 10 }, (_, i) => SCALARS[i % SCALARS.length]).join(' ')} } }`;
}

const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: product(id: "${i + 1}") { id }`).join(' ')} }`;
const directed = (n: number) => `{ product(id: "1") { ${'id @include(if: true) '.repeat(n)}} }`;
const CREATE = 'mutation Create($input: CreateProductInput!) { createProduct(input: $input) { id } }';
const newProduct = (features: number) => ({
  name: 'Limits test product', slogan: 's', description: 'd', category: 'c', defaultPrice: '1.00',
  features: Array.from({ length: features }, (_, i) => ({ feature: `f${i}`, value: 'v' })),
});

const catalogue = useTestCatalogue();
/** Tight limits on a production server, to show every setting is read. */
const TIGHT = {
  GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_TOKENS: '40', GRAPHQL_MAX_DIRECTIVES: '1',
  GRAPHQL_MAX_COST: '76', GRAPHQL_MAX_LIST_LENGTH: '5', MAX_PAGE_SIZE: '10',
};
const clients: Record<string, TestClient> = {
  production: useTestClient(catalogue, { nodeEnv: 'production' }),
  development: useTestClient(catalogue, { nodeEnv: 'development' }),
  test: useTestClient(catalogue, { nodeEnv: 'test' }),
  tight: useTestClient(catalogue, { nodeEnv: 'production', env: TIGHT }),
  open: useTestClient(catalogue, { nodeEnv: 'production', env: { GRAPHQL_INTROSPECTION: 'on', GRAPHQL_FIELD_SUGGESTIONS: 'on' } }),
  closed: useTestClient(catalogue, { nodeEnv: 'development', env: { GRAPHQL_INTROSPECTION: 'off', GRAPHQL_FIELD_SUGGESTIONS: 'off' } }),
  trusted: useTestClient(catalogue, { nodeEnv: 'production', env: { TRUSTED_DOCUMENTS: 'on' } }),
};

const client = (name: string): TestClient => {
  const found = clients[name];
  if (!found) throw new Error(`no client ${name}`);
  return found;
};

describe('default limits (as strict as graphql-armor\'s), in production', () => {
  it('depth: 9 is refused by 3, 7 by 1; 6 is answered', async () => {
    expectRefused(await client('production').post(nested(9)), 'QUERY_TOO_DEEP', 'query depth', 9, 6);
    expectRefused(await client('production').post(nested(7)), 'QUERY_TOO_DEEP', 'query depth', 7, 6);
    expectAnswered(await client('production').post(nested(6)));
  });

  it('depth counts fields, not fragments: the same depth through fragments is answered or refused alike', async () => {
    const viaFragments = (depth: number) => `{ product(id: "1") { ...Deep } } fragment Deep on Product { ... on Product { ${nested(depth).slice('{ product(id: "1") { '.length, -' } }'.length)} } }`;
    expectAnswered(await client('production').post(viaFragments(6)));
    expectRefused(await client('production').post(viaFragments(7)), 'QUERY_TOO_DEEP', 'query depth', 7, 6);
  });

  it('aliases: 16 are refused, 15 answered; a fragment\'s aliases count at every spread', async () => {
    expectRefused(await client('production').post(aliased(16)), 'QUERY_TOO_MANY_ALIASES', 'alias count', 16, 15);
    expectAnswered(await client('production').post(aliased(15)));
    const fragment = `fragment Seven on Product { ${Array.from({ length: 7 }, (_, i) => `x${i}: id`).join(' ')} }`;
    expectRefused(await client('production').post(`{ a: product(id: "1") { ...Seven } b: product(id: "2") { ...Seven } } ${fragment}`), 'QUERY_TOO_MANY_ALIASES', 'alias count', 16, 15);
    expectAnswered(await client('production').post(`{ a: product(id: "1") { ...Seven } b: product(id: "2") { id } } ${fragment}`));
  });

  it('tokens: refused while parsing, with the document\'s real count; 1000 answered', async () => {
    expectRefused(await client('production').post(ofTokens(1001)), 'QUERY_TOO_MANY_TOKENS', 'token count', 1001, 1000);
    expectRefused(await client('production').post(ofTokens(5000)), 'QUERY_TOO_MANY_TOKENS', 'token count', 5000, 1000);
    expectRefused(await client('production').get(ofTokens(1500)), 'QUERY_TOO_MANY_TOKENS', 'token count', 1500, 1000);
    // Comments are not tokens.
    expectAnswered(await client('production').post(`# ${'comment '.repeat(500)}\n${ofTokens(1000)}`));
  });

  it('directives: 51 are refused, 50 answered', async () => {
    expectRefused(await client('production').post(directed(51)), 'QUERY_TOO_MANY_DIRECTIVES', 'directive count', 51, 50);
    expectAnswered(await client('production').post(directed(50)));
  });

  it('cost: list sizes given as variables multiply it like literals do', async () => {
    // NestedProducts (features, styles with photos and skus, related with styles) per product.
    expectAnswered(await client('production').post(NestedProductsDocument, { count: 5 }));
    expectAnswered(await client('production').post(NestedProductsDocument, { count: 20 }));
    expectRefused(await client('production').post(NestedProductsDocument, { count: 50 }), 'QUERY_TOO_COSTLY', 'query cost', 7815, 5000);
    expectRefused(await client('production').post(NestedProductsByIdsDocument, { ids: ids(50) }), 'QUERY_TOO_COSTLY', 'query cost', 7815, 5000);
    expectAnswered(await client('production').post(NestedProductsByIdsDocument, { ids: ids(1) }));
    // A variable's default in the operation counts when the variable is not sent.
    const withDefault = 'query Page($count: Int = 50) { products(count: $count) { id features { feature } styles { photos { url } skus { size } } related { name styles { name } } } }';
    expectRefused(await client('production').post(withDefault), 'QUERY_TOO_COSTLY', 'query cost', 7815, 5000);
    expectAnswered(await client('production').post(withDefault, { count: 5 }));
  });

  it('cost: what front ends send is answered (docs/graphql.md "GraphQL limits": measured list sizes)', async () => {
    const card = 'id name category defaultPrice styles { name originalPrice salePrice photos { thumbnailUrl } }';
    const style = 'id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity }';
    // A product page with related cards (577), a listing of 20 with styles, photos and prices (1,215),
    // the legacy-shaped nested listing of 5 (1,157; 4,900 with the former worst-case sizes).
    expectAnswered(await client('production').post(`{ product(id: "1") { id name slogan description category defaultPrice features { feature value } styles { ${style} } related { ${card} } } }`));
    expectAnswered(await client('production').post('{ products(count: 20) { id name category defaultPrice styles { id name originalPrice salePrice photos { thumbnailUrl url } } } }'));
    expectAnswered(await client('production').post(`{ products(count: 5) { id name slogan description category defaultPrice features { feature value } styles { ${style} } related { id name styles { name } } } }`));
  });

  it('cost: the recursive related is what makes it explode, from many products', async () => {
    const walk = 'related { id related { id related { id name styles { name } } } }';
    // From one product: 4.45 × 4.45 × 4.45 related products assumed at the third level (src/graphql/cost.ts LIST_SIZES), 2,128.
    expectAnswered(await client('production').post(`{ product(id: "1") { ${walk} } }`));
    // From ten: 14,198.
    expectRefused(await client('production').post(`query R($ids: [ID!]!) { productsByIds(ids: $ids) { id ${walk} } }`, { ids: ids(10) }), 'QUERY_TOO_COSTLY', 'query cost', 14198, 5000);
    // Cards with photos at the third level, or five levels: the depth limit refuses them first (7 > 6).
    expectRefused(await client('production').post('{ product(id: "1") { related { related { related { styles { photos { url } } } } } } }'), 'QUERY_TOO_DEEP', 'query depth', 7, 6);
  });

  it('apply to trusted documents too; an untrusted operation is told that first', async () => {
    // Trusted documents are the manifest's texts, byte for byte.
    const manifest = (name: string) => [...loadTrustedDocuments().values()].find((text) => text.includes(`query ${name}(`)) ?? '';
    expectRefused(await client('trusted').post(manifest('DeepRelated'), { ids: ids(1) }), 'QUERY_TOO_DEEP', 'query depth', 7, 6);
    expectAnswered(await client('trusted').post(manifest('NestedProducts'), { count: 5 }));
    const untrusted = await client('trusted').post(nested(9));
    expect(untrusted.status).toBe(400);
    expect(untrusted.body.errors?.[0]?.extensions?.code).toBe('OPERATION_NOT_TRUSTED');
  });

  it('refusals are the same over GET', async () => {
    expectRefused(await client('production').get(nested(9)), 'QUERY_TOO_DEEP', 'query depth', 9, 6);
    expectRefused(await client('production').get(aliased(16)), 'QUERY_TOO_MANY_ALIASES', 'alias count', 16, 15);
  });
});

describe('caps on list arguments', () => {
  it('count and first: at most MAX_PAGE_SIZE, told as such rather than as a cost', async () => {
    expectBadInput(await client('production').post('{ products(count: 100000) { id } }'), 'count must be at most 100 (got 100000)', 'count');
    expectBadInput(await client('production').post('query P($n: Int) { products(count: $n) { id } }', { n: 101 }), 'count must be at most 100 (got 101)', 'count');
    expectBadInput(await client('production').post('{ productConnection(first: 101) { edges { cursor } } }'), 'first must be at most 100 (got 101)', 'first');
    expectAnswered(await client('production').post('{ products(count: 100) { id } }'));
  });

  it('productsByIds: at most 100 ids, literal or variable', async () => {
    const literal = `{ productsByIds(ids: [${ids(101).map((id) => `"${id}"`).join(' ')}]) { id } }`;
    expectBadInput(await client('production').post(literal), 'ids must have at most 100 entries (got 101)', 'ids');
    expectBadInput(await client('production').post('query B($ids: [ID!]!) { productsByIds(ids: $ids) { id } }', { ids: ids(101) }), 'ids must have at most 100 entries (got 101)', 'ids');
    expectAnswered(await client('production').post('query B($ids: [ID!]!) { productsByIds(ids: $ids) { id } }', { ids: ids(100) }));
  });

  it('lists inside input objects too: features of a new product, and nothing is written', async () => {
    expectBadInput(await client('production').post(CREATE, { input: newProduct(101) }), 'input.features must have at most 100 entries (got 101)', 'input.features');
    expect(await catalogue.direct.rows("SELECT id FROM products WHERE name = 'Limits test product'")).toEqual([]);
  });
});

describe('config overrides (tight limits)', () => {
  it('depth, aliases, tokens and directives follow GRAPHQL_MAX_*', async () => {
    expectRefused(await client('tight').post(nested(4)), 'QUERY_TOO_DEEP', 'query depth', 4, 3);
    expectAnswered(await client('tight').post(nested(3)));
    expectRefused(await client('tight').post(aliased(3)), 'QUERY_TOO_MANY_ALIASES', 'alias count', 3, 2);
    expectAnswered(await client('tight').post(aliased(2)));
    expectRefused(await client('tight').post(ofTokens(41)), 'QUERY_TOO_MANY_TOKENS', 'token count', 41, 40);
    expectAnswered(await client('tight').post(ofTokens(40)));
    expectRefused(await client('tight').post(directed(2)), 'QUERY_TOO_MANY_DIRECTIVES', 'directive count', 2, 1);
    expectAnswered(await client('tight').post(directed(1)));
  });

  it('cost follows GRAPHQL_MAX_COST to the unit: 2 + 14.625 per product is 76 for 5, 90 for 6', async () => {
    const query = 'query P($count: Int) { products(count: $count) { id features { feature } } }';
    expectAnswered(await client('tight').post(query, { count: 5 }));
    expectRefused(await client('tight').post(query, { count: 6 }), 'QUERY_TOO_COSTLY', 'query cost', 90, 76);
  });

  it('list arguments follow GRAPHQL_MAX_LIST_LENGTH and page sizes MAX_PAGE_SIZE', async () => {
    // Answered, then the same document (reused by Apollo) with more ids: checked again.
    expectAnswered(await client('tight').post('query B($ids: [ID!]!) { productsByIds(ids: $ids) { id } }', { ids: ids(5) }));
    expectBadInput(await client('tight').post('query B($ids: [ID!]!) { productsByIds(ids: $ids) { id } }', { ids: ids(6) }), 'ids must have at most 5 entries (got 6)', 'ids');
    expectBadInput(await client('tight').post(CREATE, { input: newProduct(6) }), 'input.features must have at most 5 entries (got 6)', 'input.features');
    expectBadInput(await client('tight').post('{ products(count: 11) { id } }'), 'count must be at most 10 (got 11)', 'count');
  });

  it('every setting is validated at start, with its name and what is expected', () => {
    const defaults = loadConfig({});
    expect(defaults.graphqlLimits).toEqual({ maxDepth: 6, maxAliases: 15, maxTokens: 1000, maxDirectives: 50, maxCost: 5000, maxListLength: 100 });
    expect(loadConfig({ GRAPHQL_MAX_COST: '20000' }).graphqlLimits.maxCost).toBe(20000);
    let problems: string[] = [];
    try {
      loadConfig({ GRAPHQL_MAX_DEPTH: 'deep', GRAPHQL_MAX_COST: '0', GRAPHQL_MAX_TOKENS: '1.5', GRAPHQL_INTROSPECTION: 'yes', GRAPHQL_FIELD_SUGGESTIONS: 'maybe' });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    // Every problem at once, whatever order the settings are read in.
    expect([...problems].sort()).toEqual([
      'GRAPHQL_MAX_DEPTH must be an integer from 1 to 10000 (got "deep")',
      'GRAPHQL_MAX_TOKENS must be an integer from 1 to 1000000 (got "1.5")',
      'GRAPHQL_MAX_COST must be an integer from 1 to 1000000000 (got "0")',
      'GRAPHQL_INTROSPECTION must be one of on, off (got "yes")',
      'GRAPHQL_FIELD_SUGGESTIONS must be one of on, off (got "maybe")',
    ].sort());
  });
});

describe('one operation per HTTP request', () => {
  it('a JSON array (batch) body is refused with 400', async () => {
    const response = await client('production').postRaw(JSON.stringify([{ query: '{ product(id: "1") { id } }' }, { query: '{ __typename }' }]));
    expect(response.status, response.raw).toBe(400);
    expect(response.body.errors?.[0]?.message).toBe('Operation batching disabled.');
    expect(response.body.data).toBeUndefined();
    expect(response.statements).toBe(0);
  });
});

describe('field suggestions', () => {
  const UNKNOWN_FIELD = '{ product(id: "1") { nme } }';
  const HINT = ' Did you mean "name"?';

  it('are masked outside development: the error names the field, not the schema', async () => {
    for (const env of ['production', 'test', 'closed']) {
      const response = await client(env).post(UNKNOWN_FIELD);
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.message, env).toBe('Cannot query field "nme" on type "Product".');
    }
    const variables = await client('production').post(CREATE, { input: { ...newProduct(0), nme: 'x' } });
    expect(variables.status).toBe(400);
    expect(variables.body.errors?.[0]?.message).toMatch(/Field "nme" is not defined by type "CreateProductInput"\.$/);
    expect(variables.raw).not.toMatch(/Did you mean/);
  });

  it('are kept in development, or with GRAPHQL_FIELD_SUGGESTIONS=on', async () => {
    for (const env of ['development', 'open']) {
      expect((await client(env).post(UNKNOWN_FIELD)).body.errors?.[0]?.message, env).toBe(`Cannot query field "nme" on type "Product".${HINT}`);
    }
  });
});

describe('introspection', () => {
  const SCHEMA = '{ __schema { queryType { name } } }';

  it('is refused outside development by default, with a plain message', async () => {
    for (const env of ['production', 'test', 'closed']) {
      const response = await client(env).post(SCHEMA);
      expect(response.status, env).toBe(400);
      expect(response.body.errors?.[0]).toMatchObject({
        message: 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      expect((await client(env).post('{ __type(name: "Product") { name } }')).status, env).toBe(400);
    }
    // __typename is not introspection.
    expect((await client('production').post('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('answers the IDE\'s full introspection query in development or with GRAPHQL_INTROSPECTION=on, within every limit', async () => {
    const ideQuery = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true });
    for (const env of ['development', 'open']) {
      const response = await client(env).post(ideQuery);
      expectAnswered(response);
      expect((response.body.data as { __schema: { queryType: { name: string } } }).__schema.queryType.name, env).toBe('Query');
    }
  });
});

describe('the operations this repository sends', () => {
  it('fit the default limits for one product, all but the query-count contract\'s DeepRelated', () => {
    const defaults = loadConfig({}).graphqlLimits;
    const schema = makeExecutableSchema({ typeDefs: readTypeDefs() });
    const documents = [...loadTrustedDocuments().values(), EXAMPLE_QUERY];
    expect(documents.length).toBeGreaterThan(10);
    const over: Record<string, { depth: number; cost: number }> = {};
    for (const text of documents) {
      const document = parse(text);
      for (const operation of document.definitions) {
        if (operation.kind !== 'OperationDefinition') continue;
        const name = operation.name?.value ?? '(anonymous)';
        const { depth, aliases, directives } = operationShape(document, operation);
        const cost = operationCost(schema, document, { id: '1', ids: ['1'], count: 5, first: 20, page: 1, input: newProduct(1) }, name);
        expect(aliases, name).toBeLessThanOrEqual(defaults.maxAliases);
        expect(directives, name).toBeLessThanOrEqual(defaults.maxDirectives);
        if (depth > defaults.maxDepth || cost > defaults.maxCost) over[name] = { depth, cost };
      }
    }
    expect(over).toEqual({ DeepRelated: { depth: 7, cost: 8_480 } });
  });
});
