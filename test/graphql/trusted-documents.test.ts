// TRUSTED_DOCUMENTS=on: only the operations of the codegen manifest run,
// sent in full or by id; anything else is a clear 400. Off by default.
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ProductDetailDocument } from '../../src/generated/graphql/operations/graphql.ts';
import { loadTrustedDocuments } from '../../src/graphql/trusted-documents.ts';
import { createTestClient, GRAPHQL_ACCEPT, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
const trusted = useTestClient(catalogue, { env: { TRUSTED_DOCUMENTS: 'on' } });
const manifest = loadTrustedDocuments();
const [detailId, detailText] = [...manifest].find(([, text]) => text.startsWith('query ProductDetail('))!;

async function post(client: TestClient, body: unknown) {
  const response = await client.app.inject({ method: 'POST', url: '/graphql', payload: JSON.stringify(body), headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT } });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

describe('trusted documents', () => {
  it('the manifest lists the typed operations, each under the sha256 of its text', () => {
    expect(manifest.size).toBeGreaterThan(5);
    expect(ProductDetailDocument).toBeDefined();
    expect(detailText).toContain('product(id: $id)');
  });

  it('runs a listed document sent in full', async () => {
    const response = await post(trusted, { query: detailText, variables: { id: '1' } });
    expect(response.status).toBe(200);
    expect(response.body.data.product.id).toBe('1');
  });

  it('runs a listed document sent by id only (the APQ hash, no query text)', async () => {
    const byHash = await post(trusted, { variables: { id: '3' }, extensions: { persistedQuery: { version: 1, sha256Hash: detailId } } });
    expect(byHash.body.data.product.id).toBe('3');
  });

  it('refuses anything else with a 400 that says why', async () => {
    for (const body of [{ query: '{ product(id: "1") { name } }' }, { query: print(ProductDetailDocument) + ' ', variables: { id: '1' } }]) {
      const response = await post(trusted, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('OPERATION_NOT_TRUSTED');
      expect(response.body.data).toBeUndefined();
    }
    // An unknown id is unknown (Apollo's APQ answer); sending its text then is refused.
    const unknown = await post(trusted, { variables: { id: '1' }, extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } });
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const response = await post(trusted, { query: '{ product(id: "1") { name } }' });
    expect(response.body.errors[0].message).toMatch(/only trusted documents/);
  });

  it('is off by default', async () => {
    const open = await createTestClient(catalogue.db.url);
    try {
      expect((await post(open, { query: '{ product(id: "1") { name } }' })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
