// GraphQL-over-HTTP conformance, judged by a suite nobody here wrote:
// graphql-http's auditServer against the real server on a real port. Every
// MUST and every SHOULD passes (MAY audits are printed, not required). Then
// what the audit does not try: partial data is 200 under both media types,
// and a request error is a 400 only where application/graphql-response+json
// gives statuses that meaning.
import { beforeAll, describe, expect, it } from 'vitest';
import { auditServer, type AuditResult } from 'graphql-http';
import { EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

const catalogue = useTestCatalogue();

function notPassed(results: AuditResult[], level: 'MUST' | 'SHOULD' | 'MAY'): string[] {
  return results
    .filter((result) => result.name.startsWith(level) && result.status !== 'ok')
    .map((result) => `${result.id} ${result.name}: ${'reason' in result ? result.reason : ''}`);
}

describe.each(EXECUTORS)('GraphQL over HTTP ($engine)', ({ env }) => {
  // The audit looks types up by name (`__type`): introspection on, as in development.
  const client = useTestClient(catalogue, { env: { ...env, GRAPHQL_INTROSPECTION: 'on' }, apiKey: false });
  let url: string;

  beforeAll(async () => {
    url = `${await client.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
  });

  it('graphql-http auditServer: every MUST and every SHOULD passes', async () => {
    const results = await auditServer({ url });
    const counts: Record<string, number> = {};
    for (const result of results) counts[result.status] = (counts[result.status] ?? 0) + 1;
    console.log(`graphql-http ${JSON.stringify(counts)} of ${results.length} audits; MAY not passed: ${JSON.stringify(notPassed(results, 'MAY'))}`);
    expect(results.length).toBeGreaterThan(50);
    expect(notPassed(results, 'MUST')).toEqual([]);
    expect(notPassed(results, 'SHOULD')).toEqual([]);
    // Not required, but all pass today: pinned.
    expect(notPassed(results, 'MAY')).toEqual([]);
  });

  async function post(body: unknown, accept: string) {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(body) });
    return { status: response.status, type: response.headers.get('content-type'), body: await response.json() as { data?: unknown; errors?: { extensions?: { code?: string } }[] } };
  }

  it.each([GRAPHQL_RESPONSE_JSON, 'application/json'])('partial data is 200 under %s, the field error beside it', async (accept) => {
    const response = await post({ query: '{ product(id: "abc") { id } first: product(id: "1") { id } }' }, accept);
    expect(response.status).toBe(200);
    expect(response.type).toContain(accept);
    expect(response.body.data).toEqual({ product: null, first: { id: '1' } });
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });

  it.each([
    ['a parse failure', { query: '{' }, 'GRAPHQL_PARSE_FAILED'],
    ['a validation failure', { query: '{ product(id: "1") { nope } }' }, 'GRAPHQL_VALIDATION_FAILED'],
    ['a variable coercion failure', { query: 'query P($id: ID!) { product(id: $id) { id } }', variables: { id: { not: 'an id' } } }, 'BAD_USER_INPUT'],
    ['a limit', { query: '{ a: product(id: "1") { related { related { related { related { related { id } } } } } } }' }, 'QUERY_TOO_DEEP'],
  ])('%s has no data: 400 under application/graphql-response+json, 200 under application/json', async (_what, body, code) => {
    const strict = await post(body, GRAPHQL_RESPONSE_JSON);
    const legacy = await post(body, 'application/json');
    for (const response of [strict, legacy]) {
      expect(response.body).not.toHaveProperty('data');
      expect(response.body.errors?.[0]?.extensions?.code).toBe(code);
    }
    expect(strict.status).toBe(400);
    expect(legacy.status).toBe(200);
  });
});

describe('persisted queries over HTTP', () => {
  const client = useTestClient(catalogue, { apiKey: false });
  let url: string;
  beforeAll(async () => {
    url = `${await client.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`;
  });

  it('an unknown hash has no data: 400 under application/graphql-response+json, 200 under application/json', async () => {
    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } }));
    for (const [accept, status] of [[GRAPHQL_RESPONSE_JSON, 400], ['application/json', 200]] as const) {
      const response = await fetch(`${url}?extensions=${extensions}`, { headers: { accept } });
      expect(response.status).toBe(status);
      const body = await response.json() as { data?: unknown; errors: { extensions: { code: string } }[] };
      expect(body).not.toHaveProperty('data');
      expect(body.errors[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    }
  });

  it('a body in another charset than UTF-8 is a 415 in the GraphQL error shape', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-16', accept: 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ errors: [{ message: 'request body must be application/json in UTF-8 (got charset "utf-16")', extensions: { code: 'BAD_REQUEST' } }] });
  });
});
