// Random requests to /graphql, as raw HTTP: POST with a JSON body (random
// documents, variables, operation names, extensions; batched arrays; bodies
// that are not JSON, under any content type) and GET with random parameters.
import crypto from 'node:crypto';
import fc from 'fast-check';
import type { RawRequest } from '../support/raw-http.ts';
import { anyDocument, schemaOperation } from './graphql-documents.ts';
import { hostileBodies, wrongType } from './values.ts';
import { onTheWireAs, percentEncode, withBody } from './wire.ts';

/** Variables of any shape: an object of random values, or not an object at all. */
const randomVariables: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fc.constantFrom('id', 'id0', 'count1', 'input2', 'ids3', '__proto__', 'constructor'), wrongType, { maxKeys: 3 }) },
  { weight: 1, arbitrary: wrongType },
  { weight: 1, arbitrary: fc.constantFrom('{"id": "1"}', '', '[]') },
);

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** `extensions`: automatic persisted queries with a right, wrong or malformed hash, or junk. */
function extensionsFor(query: unknown): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.record({ persistedQuery: fc.record({
      version: fc.constantFrom(1, 1, 2, '1', null),
      sha256Hash: fc.oneof(fc.constant(typeof query === 'string' ? sha256(query) : 'x'), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), wrongType),
    }, { requiredKeys: [] }) }),
    wrongType,
  );
}

/** A document with its variables: from the schema (with the variables it declares, or random ones), or any text. */
const documentAndVariables: fc.Arbitrary<{ query: unknown; variables: unknown }> = fc.oneof(
  { weight: 12, arbitrary: schemaOperation.map(({ document, variables }) => ({ query: document, variables })) },
  { weight: 4, arbitrary: fc.record({ query: anyDocument, variables: fc.option(randomVariables, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ query: wrongType, variables: fc.option(randomVariables, { nil: undefined }) }) },
);

/** The JSON object of one GraphQL request: mostly well formed, sometimes with members of the wrong type. */
const operationPayload: fc.Arbitrary<Record<string, unknown>> = fc.record({
  operation: documentAndVariables,
  operationName: fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom('Fuzz', 'Fuzz', 'Other', '') },
    { weight: 1, arbitrary: wrongType },
  ),
  extensions: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.boolean() }),
}).chain(({ operation: { query, variables }, operationName, extensions: hashOnly }) => {
  const payload: Record<string, unknown> = { query, variables, operationName };
  if (hashOnly === undefined) return fc.constant(payload);
  return extensionsFor(query).map((extensions) => ({ ...payload, query: hashOnly ? undefined : query, extensions }));
});

/** A POST /graphql body: one operation or a batch, as JSON text; or something hostile built around it. */
const postBody: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 3, arbitrary: operationPayload.map((payload) => Buffer.from(JSON.stringify(payload))) },
  { weight: 1, arbitrary: hostileBodies(
    fc.oneof(
      { weight: 6, arbitrary: operationPayload.map((payload) => JSON.stringify(payload)) },
      { weight: 1, arbitrary: fc.array(operationPayload, { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
    ),
    'variables',
  ) },
);

/** POST /graphql as clients send it: one JSON payload, declared as JSON. */
const jsonPost: fc.Arbitrary<RawRequest> = operationPayload.map((payload) => {
  const body = Buffer.from(JSON.stringify(payload));
  return { method: 'POST', target: '/graphql', headers: [['content-type', 'application/json'], ['content-length', String(body.length)]], body };
});

/** POST /graphql (or another method): mostly a plain JSON payload, else with a random body, content type and headers. */
export const postRequest: fc.Arbitrary<RawRequest> = fc.oneof(
  { weight: 3, arbitrary: jsonPost },
  { weight: 2, arbitrary: withBody(
    fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS') })
      .map((method) => ({ method, path: '/graphql' })),
    postBody,
  ) },
);

const GET_KEYS = ['query', 'variables', 'variables', 'operationName', 'extensions', 'query[]', 'variables[a]', '__proto__', ''] as const;

/** A GET parameter value: a document, JSON (variables, extensions), or pieces of it badly encoded. */
const getValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: anyDocument.map(percentEncode) },
  { weight: 2, arbitrary: fc.oneof(randomVariables, operationPayload.chain((payload) => extensionsFor(payload.query))).map((value) => percentEncode(JSON.stringify(value) ?? '')) },
  { weight: 1, arbitrary: onTheWireAs(fc.constantFrom('{', 'null', '{"a":', '1', '%', 'mutation { deleteProduct(id: "1") }')) },
);

/** GET /graphql: a schema operation with its variables (or a random document), plus random, repeated or badly encoded parameters. */
export const getRequest: fc.Arbitrary<RawRequest> = fc.record({
  operation: fc.option(documentAndVariables, { nil: undefined, freq: 10 }),
  pairs: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom(...GET_KEYS), getValue), { minLength: 1, maxLength: 3 }) }),
  accept: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('application/graphql-response+json', 'text/html', '*/*', 'multipart/mixed; deferSpec=20220824', 'text/event-stream', '') }),
  preflight: fc.boolean(),
}).map(({ operation, pairs, accept, preflight }) => {
  const own = operation === undefined ? [] : [
    ['query', percentEncode(typeof operation.query === 'string' ? operation.query : JSON.stringify(operation.query) ?? '')],
    ...(operation.variables === undefined ? [] : [['variables', percentEncode(JSON.stringify(operation.variables) ?? '')]]),
  ];
  return {
    method: 'GET',
    target: `/graphql?${[...own, ...pairs].map(([key, value]) => `${key}=${value}`).join('&')}`,
    headers: [['accept', accept], ...(preflight ? [['apollo-require-preflight', 'true'] as [string, string]] : [])],
  };
});
