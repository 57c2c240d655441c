// Property-based fuzzing of /graphql with random and malformed input, over raw
// HTTP (test/fuzz/graphql-inputs.ts, graphql-documents.ts), under both
// executors. For every answer: no 5xx; every error has a message and nothing
// internal (no stack, SQL, file path, no masked internal error: bad input must
// never crash a resolver); Object.prototype stays clean; and a normal query
// still works afterwards. Seed and runs: test/support/fuzz.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { describeExchange, fuzz, leaksIn, requestText, watchObjectPrototype } from '../support/fuzz.ts';
import { rawRequest, type RawRequest, type RawResponse } from '../support/raw-http.ts';
import { getRequest, postRequest } from './graphql-inputs.ts';

const catalogue = useTestCatalogue();
const objectPrototype = watchObjectPrototype();

interface AnswerError {
  message?: unknown;
  extensions?: { code?: unknown; stacktrace?: unknown };
}

/** The errors of an answer: GraphQL's `errors`, or the one error of a Fastify or legacy body. */
function errorsOf(body: unknown): AnswerError[] {
  if (Array.isArray(body)) return body.flatMap(errorsOf);
  if (typeof body !== 'object' || body === null) return [];
  const { errors, error, message } = body as { errors?: AnswerError[]; error?: unknown; message?: unknown };
  if (Array.isArray(errors)) return errors;
  return error === undefined ? [] : [{ message: message ?? error }];
}

/** The checks every answer to fuzzed GraphQL input must pass. */
function expectSafeAnswer(request: RawRequest, response: RawResponse): void {
  const exchange = describeExchange(request, response);
  expect(response.status, exchange).toBeLessThan(500);
  const text = response.body.toString('utf8');
  // GET with Accept: text/html and no query is the IDE page.
  if (!text || response.headers['content-type']?.startsWith('text/html')) return;
  const errors = errorsOf(JSON.parse(text));
  if (response.status >= 400) expect(errors.length, exchange).toBeGreaterThan(0);
  for (const error of errors) {
    expect(error.message, exchange).toEqual(expect.any(String));
    expect(error.extensions?.code, exchange).not.toBe('INTERNAL_SERVER_ERROR');
    expect(error.extensions?.stacktrace, exchange).toBeUndefined();
    expect(leaksIn(`${String(error.message)}\n${JSON.stringify(error.extensions ?? {})}`, requestText(request)), exchange).toEqual([]);
  }
}

describe.each(EXECUTORS)('GraphQL fuzzing with $engine', ({ env: executor }) => {
  // Production settings (internal errors masked), with the response cache on: it keys on documents and variables too.
  const client = useTestClient(catalogue, { nodeEnv: 'production', env: { ...executor, CACHE: 'on' } });
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = await client.app.listen({ port: 0, host: '127.0.0.1' });
  });

  async function expectNormalQueryWorks(): Promise<void> {
    const response = await client.post<{ products: { id: string; name: string }[] }>('{ products(count: 2) { id name styles { id } } }');
    expect(response.status, response.raw).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data?.products).toHaveLength(2);
  }

  it('POST /graphql: random documents, variables, extensions, batches and bodies under any content type', async () => {
    await fuzz(postRequest, 250, async (request) => {
      expectSafeAnswer(request, await rawRequest(baseUrl, request));
    });
    await expectNormalQueryWorks();
  });

  it('GET /graphql: random query parameters', async () => {
    await fuzz(getRequest, 150, async (request) => {
      expectSafeAnswer(request, await rawRequest(baseUrl, request));
    });
    await expectNormalQueryWorks();
  });

  it('afterwards: Object.prototype is untouched and normal queries still work', async () => {
    objectPrototype.expectUntouched();
    await expectNormalQueryWorks();
  });
});
