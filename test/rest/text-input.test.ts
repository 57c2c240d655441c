// Text that is not Unicode (issue 13: invalid UTF-8 and lone surrogates in a
// JSON body were stored as U+FFFD, 201). REST writes and GraphQL (POST body
// and variables, GET parameters) answer 400 naming the field, in each API's
// error shape, and write nothing; valid text, astral characters included,
// still goes through.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCatalogue, createTestClient, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';

let catalogue: TestCatalogue;
let client: TestClient;

beforeAll(async () => {
  catalogue = await createTestCatalogue({ scale: 0.0001 });
  client = await createTestClient(catalogue.db.url, { nodeEnv: 'production' });
});
afterAll(async () => {
  await client?.close();
  await catalogue?.dispose();
});

const PRODUCT = '{"name": "NAME", "slogan": "s", "description": "d", "category": "c", "default_price": "10", "features": [{"feature": "f", "value": "VALUE"}]}';

/** A body whose bytes are `text` with `placeholder` replaced by raw bytes. */
function withBytes(text: string, placeholder: string, bytes: number[]): Buffer {
  const [before, after] = text.split(placeholder) as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

async function productCount(): Promise<number> {
  return Number((await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products')).n);
}

async function rest(method: 'POST' | 'PUT', url: string, payload: string | Buffer) {
  const response = await client.app.inject({ method, url, payload, headers: { 'content-type': 'application/json' } });
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

describe('REST writes', () => {
  it.each([
    ['invalid UTF-8 in a string (a lone continuation byte)', withBytes(PRODUCT, 'NAME', [0x41, 0x80, 0x42]), 'name: is not valid UTF-8 text'],
    ['invalid UTF-8 deeper down (a truncated sequence)', withBytes(PRODUCT, 'VALUE', [0xe2, 0x82]), 'features[0].value: is not valid UTF-8 text'],
    ['an overlong encoding of "/"', withBytes(PRODUCT, 'NAME', [0xc0, 0xaf]), 'name: is not valid UTF-8 text'],
    ['a surrogate encoded in UTF-8 (CESU)', withBytes(PRODUCT, 'NAME', [0xed, 0xa0, 0x80]), 'name: is not valid UTF-8 text'],
    ['invalid UTF-8 outside any string', withBytes(PRODUCT, '"NAME"', [0x22, 0x78, 0x22, 0xff]), 'body: the request body is not valid UTF-8'],
    ['a lone high surrogate escape', PRODUCT.replace('NAME', '\\ud800'), 'name: must be valid Unicode text (lone surrogate)'],
    ['a lone low surrogate escape', PRODUCT.replace('VALUE', 'ok \\uDC00'), 'features[0].value: must be valid Unicode text (lone surrogate)'],
    ['reversed surrogates', PRODUCT.replace('NAME', '\\ude00\\ud83d'), 'name: must be valid Unicode text (lone surrogate)'],
    ['a property name with a lone surrogate', PRODUCT.replace('"slogan"', '"\\ud800"'), 'body: a property name must be valid Unicode text (lone surrogate)'],
  ])('POST /products with %s: 400 naming the field, nothing written', async (_case, payload, message) => {
    const before = await productCount();
    const response = await rest('POST', '/products', payload);
    expect(response).toEqual({ status: 400, body: { error: message } });
    expect(await productCount()).toBe(before);
  });

  it('PUT /products/:id with a lone surrogate: 400, the product unchanged', async () => {
    const before = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = 1');
    expect(await rest('PUT', '/products/1', '{"name": "x\\udfff"}')).toEqual({ status: 400, body: { error: 'name: must be valid Unicode text (lone surrogate)' } });
    expect(await rest('PUT', '/products/1', withBytes('{"features": [{"feature": "a", "value": "b"}, {"feature": "F"}]}', 'F', [0xf8]))).toEqual({ status: 400, body: { error: 'features[1].feature: is not valid UTF-8 text' } });
    expect(await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = 1')).toEqual(before);
  });

  it('stores valid text as sent: escaped surrogate pairs, raw astral characters, U+FFFD itself', async () => {
    const created = await rest('POST', '/products', PRODUCT.replace('NAME', 'Tee \\ud83d\\ude00 ✓').replace('VALUE', '\u{1F455} �'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Tee 😀 ✓', features: [{ feature: 'f', value: '👕 �' }] });
    const row = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [created.body.id]);
    expect(row.name).toBe('Tee 😀 ✓');
  });

  it('keeps the answers for bodies that are not JSON', async () => {
    expect(await rest('POST', '/products', '{"name": ')).toEqual({ status: 400, body: { error: 'request body is not valid JSON' } });
    expect(await rest('POST', '/products', '')).toEqual({ status: 400, body: { error: 'request body is not valid JSON' } });
    expect((await rest('POST', '/products', '{"__proto__": {"x": 1}}')).status).toBe(400);
  });
});

interface GraphQLAnswer {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function graphqlPost(payload: string | Buffer): Promise<GraphQLAnswer> {
  const response = await client.app.inject({ method: 'POST', url: '/graphql', payload, headers: { 'content-type': 'application/json' } });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

async function graphqlGet(query: string): Promise<GraphQLAnswer> {
  const response = await client.app.inject({ method: 'GET', url: `/graphql?${query}`, headers: { accept: 'application/json' } });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

const badInput = (field: string, problem: string) => ({
  status: 400,
  body: { errors: [{ message: `${field}: ${problem}`, extensions: { code: 'BAD_USER_INPUT', field } }] },
});

describe('GraphQL', () => {
  const CREATE = 'mutation ($input: CreateProductInput!) { createProduct(input: $input) { id name } }';
  const input = { name: 'NAME', slogan: 's', description: 'd', category: 'c', defaultPrice: '10', features: [{ feature: 'f', value: 'VALUE' }] };
  const body = JSON.stringify({ query: CREATE, variables: { input } });

  it('POST with a lone surrogate in a variable: 400 BAD_USER_INPUT naming it, nothing written', async () => {
    const before = await productCount();
    expect(await graphqlPost(body.replace('NAME', '\\ud800'))).toEqual(badInput('variables.input.name', 'must be valid Unicode text (lone surrogate)'));
    expect(await graphqlPost(body.replace('VALUE', '\\udc00'))).toEqual(badInput('variables.input.features[0].value', 'must be valid Unicode text (lone surrogate)'));
    expect(await productCount()).toBe(before);
  });

  it('POST with invalid UTF-8 in a variable or in the document: 400 naming it', async () => {
    const before = await productCount();
    expect(await graphqlPost(withBytes(body, 'NAME', [0xff]))).toEqual(badInput('variables.input.name', 'is not valid UTF-8 text'));
    const query = JSON.stringify({ query: '{ product(id: "X") { id name } }' });
    expect(await graphqlPost(withBytes(query, 'X', [0xc3]))).toEqual(badInput('query', 'is not valid UTF-8 text'));
    expect(await graphqlPost(withBytes(query, 'X', [0x31, 0xf5, 0x80, 0x80, 0x80]))).toEqual(badInput('query', 'is not valid UTF-8 text'));
    expect(await productCount()).toBe(before);
  });

  it('GET with a lone surrogate in variables, or parameters that are not UTF-8: 400 naming them', async () => {
    const query = encodeURIComponent('query ($id: ID!) { product(id: $id) { id } }');
    expect(await graphqlGet(`query=${query}&variables=${encodeURIComponent('{"id": "\\ud800"}')}`)).toEqual(badInput('variables.id', 'must be valid Unicode text (lone surrogate)'));
    expect(await graphqlGet(`query=${query}&variables=%7B%22id%22%3A%22%FF%22%7D`)).toEqual(badInput('variables', 'is not valid UTF-8 text (percent-encoded bytes)'));
    expect(await graphqlGet(`query=${query}&operationName=%C3`)).toEqual(badInput('operationName', 'is not valid UTF-8 text (percent-encoded bytes)'));
    // A parameter's name may be percent-encoded too (`%76ariables` is `variables`): still checked.
    expect(await graphqlGet(`query=${query}&%76ariables=%7B%22id%22%3A%22%FF%22%7D`)).toEqual(badInput('variables', 'is not valid UTF-8 text (percent-encoded bytes)'));
    expect(await graphqlGet(`query=%7B%20product(id%3A%20%22%ED%A0%80%22)%20%7B%20id%20%7D%20%7D`)).toEqual(badInput('query', 'is not valid UTF-8 text (percent-encoded bytes)'));
  });

  it('GET with only ASCII and escapes of ASCII, malformed escapes read as they stand: served', async () => {
    const query = encodeURIComponent('query ($id: ID!) { product(id: $id) { id } }');
    const variables = encodeURIComponent('{"id": "1"}');
    for (const extra of ['', '&x=%zz', '&x=%4&y=%', '&x=%7e%7E']) {
      expect(await graphqlGet(`query=${query}&variables=${variables}${extra}`)).toEqual({ status: 200, body: { data: { product: { id: '1' } } } });
    }
    // An escape beyond ASCII is still read: lowercase hex too.
    expect(await graphqlGet(`query=${query}&variables=%7b%22id%22%3a%22%ff%22%7d`)).toEqual(badInput('variables', 'is not valid UTF-8 text (percent-encoded bytes)'));
  });

  it('serves valid text, astral characters included', async () => {
    const created = await graphqlPost(body.replace('NAME', 'Tee \\ud83d\\ude00'));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ data: { createProduct: { name: 'Tee 😀' } } });
    const query = encodeURIComponent('query Tee($id: ID!) { product(id: $id) { id name } }');
    const id = (created.body.data as { createProduct: { id: string } }).createProduct.id;
    expect(await graphqlGet(`query=${query}&variables=${encodeURIComponent(JSON.stringify({ id, unused: 'é 😀' }))}&operationName=Tee`)).toEqual({ status: 200, body: { data: { product: { id, name: 'Tee 😀' } } } });
  });

  it('a body that is not JSON is a 400 in the GraphQL error shape', async () => {
    const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: '{"query": ', headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ errors: [{ message: expect.stringContaining('not valid JSON'), extensions: { code: 'BAD_REQUEST' } }] });
  });
});

// Issue 45: a plain body sent with `Content-Encoding: gzip` was taken as if it
// were plain. Bodies are read as sent, never decompressed: any coding but
// identity is a 415 naming it, in each API's error shape, and nothing is written.
describe('Content-Encoding', () => {
  const encoded = (method: 'POST' | 'PUT', url: string, payload: string | Buffer, encoding: string) =>
    client.app.inject({ method, url, payload, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
  const refusal = (encoding: string) => `request body must not be compressed: Content-Encoding "${encoding}" is not supported (send it as is, without Content-Encoding)`;

  it('a plain body labelled gzip (or deflate, br, a list): 415 naming it, nothing written; REST and GraphQL', async () => {
    const before = await productCount();
    for (const encoding of ['gzip', 'deflate', 'br', 'GZIP', 'gzip, identity', 'x-custom']) {
      const shown = encoding === 'gzip, identity' ? 'gzip' : encoding;
      const response = await encoded('POST', '/products', PRODUCT, encoding);
      expect([response.statusCode, JSON.parse(response.body)], encoding).toEqual([415, { error: refusal(shown) }]);
      const put = await encoded('PUT', '/products/1', '{"name": "never"}', encoding);
      expect(put.statusCode, encoding).toBe(415);
      const graphql = await encoded('POST', '/graphql', JSON.stringify({ query: 'mutation { deleteProduct(id: "1") }' }), encoding);
      expect([graphql.statusCode, JSON.parse(graphql.body)], encoding).toEqual([415, { errors: [{ message: refusal(shown), extensions: { code: 'BAD_REQUEST' } }] }]);
    }
    // A body that really is gzip is refused the same way, not read as JSON text.
    const gzipped = await encoded('POST', '/products', gzipSync(PRODUCT), 'gzip');
    expect(gzipped.statusCode).toBe(415);
    expect(await productCount()).toBe(before);
    expect((await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = 1')).name).not.toBe('never');
  });

  it('identity (the body as is) is what no Content-Encoding is', async () => {
    for (const encoding of ['identity', 'Identity', '']) {
      const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: '{"query": "{ __typename }"}', headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expect([response.statusCode, response.body], JSON.stringify(encoding)).toEqual([200, '{"data":{"__typename":"Query"}}\n']);
    }
  });
});
