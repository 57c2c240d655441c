// A JSON value nested 100,000 levels deep (200 KB) in a GraphQL variable, a
// GET parameter or a REST body: JSON.parse takes it, but every recursive walk
// after it (the result cache's key, JSON.stringify, coercion) would overflow
// the stack: an outside run got a 500 from 12 KB of brackets in any
// variable. It is the client's doing: a 400 naming where, the completion
// line counting the error, nothing logged as internal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXECUTORS, GRAPHQL_ACCEPT, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { MAX_JSON_DEPTH } from '../../src/http/json-input.ts';
import { canonicalJson } from '../../src/util/canonical-json.ts';
import { CapturedLog } from '../support/captured-log.ts';

const LEVELS = 100_000;
const nested = (levels: number, inner: string) => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

const catalogue = useTestCatalogue();

describe.each(EXECUTORS)('variables nested $engine', ({ engine, env: executor }) => {
  const log = new CapturedLog();
  // The response cache on: its key is built from the variables before anything else reads them.
  const client = useTestClient(catalogue, { nodeEnv: 'production', env: { ...executor, CACHE: 'on', LOG_LEVEL: 'info' }, logDestination: log });

  it.each([
    ['an ID', 'query($id: ID!) { product(id: $id) { name } }', 'id', 'variables.id'],
    ['a list of IDs', 'query($ids: [ID!]!) { productsByIds(ids: $ids) { name } }', 'ids', 'variables.ids'],
    ['a search string', 'query($q: String!) { search(query: $q) { edges { node { name } } } }', 'q', 'variables.q'],
  ])(`${LEVELS.toLocaleString('en')} levels in %s: a 400 naming the variable, logged as the client's`, async (_what, query, name, field) => {
    const reqId = `nested-${engine}-${name}`;
    const body = `{"query":${JSON.stringify(query)},"variables":{"${name}":${nested(LEVELS, '"1"')}}}`;
    const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: body, headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT, 'x-request-id': reqId } });
    expect(response.statusCode, response.body).toBe(400);
    const { errors } = JSON.parse(response.body) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(errors).toEqual([{ message: `${field}: is nested more than ${MAX_JSON_DEPTH} levels deep`, extensions: { code: 'BAD_USER_INPUT', field } }]);
    const lines = log.of(reqId);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([[30, 'request completed']]);
    expect(lines[0]).toMatchObject({ status: 400, route: '/graphql', graphqlErrors: 1 });
  });

  it('inside an input object (filter.categories)', async () => {
    const body = `{"query":"query($f: ProductFilter) { productConnection(filter: $f) { totalCount } }","variables":{"f":{"categories":${nested(LEVELS, '"Pants"')}}}}`;
    const response = await client.postRaw(body);
    expect(response.status, response.raw).toBe(400);
    expect(response.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'variables.f.categories' });
  });

  it('in a GET request\'s variables and extensions parameters', async () => {
    for (const [parameter, value] of [['variables', `{"id":${nested(LEVELS, '"1"')}}`], ['extensions', `{"x":${nested(LEVELS, '1')}}`]] as const) {
      const params = new URLSearchParams({ query: 'query($id: ID!) { product(id: $id) { name } }', [parameter]: value });
      const response = await client.app.inject({ method: 'GET', url: `/graphql?${params}`, headers: { accept: GRAPHQL_ACCEPT } });
      expect(response.statusCode, response.body).toBe(400);
      const field = parameter === 'variables' ? 'variables.id' : 'extensions.x';
      expect(JSON.parse(response.body)).toEqual({ errors: [{ message: `${field}: is nested more than ${MAX_JSON_DEPTH} levels deep`, extensions: { code: 'BAD_USER_INPUT', field } }] });
    }
  });

  it('as deep as the limit allows is no problem: the variable\'s own type error', async () => {
    // The body is one level, variables a second: the value may be nested to the limit minus two.
    const response = await client.post('query($id: ID!) { product(id: $id) { name } }', { id: JSON.parse(nested(MAX_JSON_DEPTH - 2, '"1"')) as unknown });
    expect(response.status, response.raw).toBe(400);
    expect(response.body.errors?.[0]?.message).toMatch(/^Variable "\$id" got invalid value/);
  });

  it('one level more is refused', async () => {
    const response = await client.post('query($id: ID!) { product(id: $id) { name } }', { id: JSON.parse(nested(MAX_JSON_DEPTH - 1, '"1"')) as unknown });
    expect(response.status, response.raw).toBe(400);
    expect(response.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'variables.id' });
  });
});

describe('a REST body nested 100,000 levels deep', () => {
  const client = useTestClient(catalogue, { nodeEnv: 'production' });

  it('is a 400 naming where, before anything reads it', async () => {
    const body = `{"name":"n","features":[{"feature":"f","value":${nested(LEVELS, '"v"')}}]}`;
    const response = await client.app.inject({ method: 'POST', url: '/products', payload: body, headers: { 'content-type': 'application/json' } });
    expect(response.statusCode, response.body).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error: `features[0].value: is nested more than ${MAX_JSON_DEPTH} levels deep` });
  });
});

describe('canonicalJson', () => {
  it('writes any depth JSON.parse takes without recursion, keys sorted', () => {
    const deep = JSON.parse(`{"b":${nested(LEVELS, '{"y":1,"x":[2,"s"]}')},"a":null}`) as unknown;
    const text = canonicalJson(deep);
    expect(text).toBe(`{"a":null,"b":${nested(LEVELS, '{"x":[2,"s"],"y":1}')}}`);
  });

  it('writes what the recursive definition writes (undefined and functions as null), for any value', () => {
    // The definition, recursive: fine for values as shallow as fast-check makes them.
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
      if (value && typeof value === 'object') {
        return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`).join(',')}}`;
      }
      return JSON.stringify(value) ?? 'null';
    };
    const values = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), fc.array(tie('value')), fc.dictionary(fc.string(), tie('value'))),
    })).value;
    fc.assert(fc.property(values, (value) => canonicalJson(value) === reference(value)), { numRuns: 2_000 });
  });
});
