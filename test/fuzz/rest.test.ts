// Property-based fuzzing of the legacy REST routes with random and malformed
// input, over raw HTTP (test/fuzz/rest-inputs.ts). For every answer: no 5xx,
// a 4xx is exactly {"error": "<string>"}, nothing internal in it; rejected
// writes write nothing, Object.prototype stays clean, and the server still
// answers a normal request afterwards. Seed and runs: test/support/fuzz.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { describeExchange, fuzz, leaksIn, requestText, watchObjectPrototype } from '../support/fuzz.ts';
import { rawRequest, type RawRequest, type RawResponse } from '../support/raw-http.ts';
import { listingRequest, malformedHttpRequest, productPathRequest, writeRequest } from './rest-inputs.ts';

const catalogue = useTestCatalogue();
// Production settings (internal errors masked), with the response cache on: its keys see the raw URLs too.
const client = useTestClient(catalogue, { nodeEnv: 'production', env: { CACHE: 'on' } });
let baseUrl: string;
const objectPrototype = watchObjectPrototype();

/** Products the fuzzed requests created (201) minus those they deleted (204). */
let netCreated = 0;
let productsAtStart: number;

beforeAll(async () => {
  baseUrl = await client.app.listen({ port: 0, host: '127.0.0.1' });
  productsAtStart = await productCount();
});

async function productCount(): Promise<number> {
  return Number((await catalogue.direct.one<{ n: string }>('SELECT count(*) AS n FROM products')).n);
}

/** What a write could change: product and feature counts, the latest update. */
async function catalogueState(): Promise<string> {
  const row = await catalogue.direct.one(
    'SELECT (SELECT count(*) FROM products) AS products, (SELECT count(*) FROM features) AS features, (SELECT max(updated_at) FROM products) AS updated');
  return JSON.stringify(row);
}

/**
 * The checks every answer to fuzzed input must pass: below 500, and a 4xx is
 * JSON with a string `error` and no internals. Exactly {"error": "..."} once
 * the request reached the app (it has a request id); before that, Node's HTTP
 * parser refused it (a 16 KB URL is a 431) and Fastify's own body answers.
 */
function expectSafeAnswer(request: RawRequest, response: RawResponse): void {
  const exchange = describeExchange(request, response);
  expect(response.status, exchange).toBeLessThan(500);
  if (response.status < 400 || request.method === 'HEAD') return;
  expect(response.headers['content-type'], exchange).toMatch(/^application\/json/);
  const parsed = JSON.parse(response.body.toString('utf8')) as { error: string };
  if (response.headers['x-request-id']) expect(parsed, exchange).toEqual({ error: expect.any(String) });
  else expect(parsed.error, exchange).toEqual(expect.any(String));
  const messages = Object.values(parsed).filter((value) => typeof value === 'string').join('\n');
  expect(leaksIn(messages, requestText(request)), exchange).toEqual([]);
}

async function expectAlive(): Promise<void> {
  const response = await rawRequest(baseUrl, { method: 'GET', target: '/products?page=1&count=2' });
  expect(response.status).toBe(200);
  expect(JSON.parse(response.body.toString('utf8'))).toHaveLength(2);
}

describe('REST fuzzing', () => {
  it('GET /products/:product_id(/styles|/related) with random ids, encodings and suffixes', async () => {
    await fuzz(productPathRequest, 300, async (request) => {
      expectSafeAnswer(request, await rawRequest(baseUrl, request));
    });
    await expectAlive();
  });

  it('GET /products with random query strings (repeated, bracketed, encoded page and count)', async () => {
    await fuzz(listingRequest, 300, async (request) => {
      const response = await rawRequest(baseUrl, request);
      expectSafeAnswer(request, response);
      if (response.status === 200) expect(JSON.parse(response.body.toString('utf8')), describeExchange(request, response)).toBeInstanceOf(Array);
    });
    await expectAlive();
  });

  it('writes with random methods, content types, headers and bodies: a rejected write writes nothing', async () => {
    await fuzz(writeRequest, 250, async (request) => {
      const before = await catalogueState();
      const response = await rawRequest(baseUrl, request);
      expectSafeAnswer(request, response);
      if (response.status >= 400) expect(await catalogueState(), describeExchange(request, response)).toBe(before);
      if (response.status === 201) netCreated += 1;
      if (response.status === 204 && request.method === 'DELETE') netCreated -= 1;
    });
    await expectAlive();
  });

  it('requests that are not even valid HTTP get a 4xx without internals, never a 5xx', async () => {
    await fuzz(malformedHttpRequest, 100, async (request) => {
      const response = await rawRequest(baseUrl, request);
      expect(response.status, describeExchange(request, response)).toBeGreaterThanOrEqual(400);
      expectSafeAnswer(request, response);
    });
    await expectAlive();
  });

  it('afterwards: Object.prototype is untouched, the product count is what the accepted writes made it, reads work', async () => {
    objectPrototype.expectUntouched();
    expect(await productCount()).toBe(productsAtStart + netCreated);
    await expectAlive();
    const [first] = JSON.parse((await rawRequest(baseUrl, { method: 'GET', target: '/products?count=1' })).body.toString('utf8')) as { id: number }[];
    const styles = await rawRequest(baseUrl, { method: 'GET', target: `/products/${first!.id}/styles` });
    expect(styles.status).toBe(200);
    expect(JSON.parse(styles.body.toString('utf8'))).toMatchObject({ product_id: String(first!.id), results: expect.any(Array) });
  });
});
