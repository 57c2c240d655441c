// Every REST operation gives the API key and rate-limit answers the OpenAPI
// document promises (401, 429, 503), with the documented body and headers:
// the counterpart of test/rest/openapi.test.ts's "every documented status was
// produced" for the statuses of src/auth/rest-guard.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi-offline.ts';
import { type OpenApiDocument } from '../../src/rest/openapi.ts';
import { createTestCatalogue, createTestClient, useTestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { assertMatchesOpenApi, defaultOpenApiDocument, resolveRef } from '../support/openapi.ts';

const document = defaultOpenApiDocument();
const PRODUCT = { name: 'Doc Tee', slogan: 's', description: 'd', category: 'Shirts', default_price: '10.00' };

/** Every operation of the document, with a concrete URL and a valid body. */
const OPERATIONS = Object.entries(document.paths).flatMap(([template, item]) =>
  (['get', 'post', 'put', 'delete'] as const).filter((method) => item[method]).map((method) => ({
    method: method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: template.replace('{product_id}', '5'),
    body: method === 'post' ? PRODUCT : method === 'put' ? { slogan: 'documented' } : undefined,
  })));

const catalogue = useTestCatalogue();

/** Sends the operation; checks status, body and the documented response headers. */
async function expectDocumented(send: (options: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: string; headers?: Record<string, string> }) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, status: number) {
  for (const operation of OPERATIONS) {
    const response = await send({
      method: operation.method, url: operation.url,
      ...(operation.body ? { payload: JSON.stringify(operation.body), headers: { 'content-type': 'application/json' } } : {}),
    });
    const label = `${operation.method} ${operation.url}`;
    expect(response.statusCode, label).toBe(status);
    assertMatchesOpenApi({ method: operation.method, path: operation.url, status, body: JSON.parse(response.body) }, document);
    const template = Object.keys(document.paths).find((t) => t.replace('{product_id}', '5') === operation.url)!;
    const documented = resolveRef<{ headers?: Record<string, unknown> }>(document, document.paths[template]![operation.method.toLowerCase() as 'get']!.responses[status] as { $ref: string });
    for (const header of Object.keys(documented.headers ?? {})) expect(response.headers[header.toLowerCase()], `${label}: ${header}`).toBeDefined();
  }
}

describe('the access statuses of every REST operation', () => {
  const clients: TestClient[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close();
  });
  const client = async (env: Record<string, string>, url = catalogue.db.url) => {
    const created = await createTestClient(url, { env });
    clients.push(created);
    return created;
  };

  it('401 without a key when keys are required', async () => {
    const strict = await client({ API_KEYS_FOR_READS: 'required' });
    await expectDocumented((options) => strict.injectAnonymous(options), 401);
  });

  it('429 once the budget is spent', async () => {
    const limited = await client({ RATE_LIMIT: 'on', RATE_LIMIT_KEY_PER_MINUTE: '1' });
    expect((await limited.app.inject({ method: 'GET', url: '/products/5' })).statusCode).toBe(200);
    await expectDocumented((options) => limited.app.inject(options), 429);
  });

  it('503 when the key cannot be checked', async () => {
    const { db } = await createTestCatalogue({ scale: 0.0001 });
    const orphan = await client({ API_KEY_CACHE_SECONDS: '0' }, db.url);
    await db.drop();
    await expectDocumented((options) => orphan.app.inject(options), 503);
  });
});

describe('the document', () => {
  it('needs a key for writes, and for reads only when the server requires it', async () => {
    const security = (doc: OpenApiDocument, path: string, method: 'get' | 'post') => doc.paths[path]![method]!.security;
    const strict = await buildOpenApiDocument({ campus: 'hr-rfp', maxPageSize: 100, emptyPlaceholders: true, readsNeedKey: true });
    expect(security(document, '/products', 'post')).toEqual([{ bearerKey: [] }, { headerKey: [] }]);
    expect(security(document, '/products', 'get')).toEqual([{}, { bearerKey: [] }, { headerKey: [] }]);
    expect(security(strict, '/products', 'get')).toEqual([{ bearerKey: [] }, { headerKey: [] }]);
    expect(Object.keys(document.components.securitySchemes ?? {})).toEqual(['bearerKey', 'headerKey']);
  });
});
