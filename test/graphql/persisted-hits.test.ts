// A cached persisted-query GET is answered before Apollo's pipeline
// (src/graphql/persisted-hits.ts): the same answer Apollo gives, byte for byte
// and header for header, with the same access rules and rate-limit charge, and
// never an answer a write made stale.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestCatalogue, withTestClient, type TestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();

const QUERY = 'query Page($id: ID!) { product(id: $id) { id name features { feature value } styles { id photos { url } skus { size } } relatedIds } }';
const HASH = crypto.createHash('sha256').update(QUERY).digest('hex');
const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }));

function hashOnlyGet(client: TestClient, id: string, headers: Record<string, string> = {}) {
  return client.app.inject({ method: 'GET', url: `/graphql?operationName=Page&variables=${encodeURIComponent(JSON.stringify({ id }))}&extensions=${extensions}`, headers });
}

async function register(client: TestClient, id: string) {
  const response = await client.app.inject({
    method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' },
    payload: { query: QUERY, operationName: 'Page', variables: { id }, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } },
  });
  expect(response.statusCode).toBe(200);
}

/** The headers that may differ between two answers of the same content. */
const VOLATILE = new Set(['date', 'x-request-id', 'x-cache', 'x-sql-statements', 'ratelimit-remaining', 'ratelimit-reset']);
const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));

const withClient = (env: Record<string, string>, run: (client: TestClient) => Promise<void>, apiKey = true) =>
  withTestClient(catalogue.db.url, { env: { CACHE: 'on', ...env }, apiKey }, run);

describe('cached persisted-query GETs', () => {
  it('are answered before Apollo with what Apollo answered, under both media types', async () => {
    await withClient({}, async (client) => {
      await register(client, '5');
      const hits = client.server.persistedHits!;
      for (const accept of [undefined, 'application/graphql-response+json', 'application/json']) {
        const id = accept === undefined ? '6' : accept.includes('graphql') ? '7' : '8';
        const headers: Record<string, string> = accept ? { accept } : {};
        const before = hits.answered;
        const viaApollo = await hashOnlyGet(client, id, headers); // a miss: Apollo runs it, the cache keeps it
        expect(viaApollo.headers['x-cache']).toBe('miss');
        expect(hits.answered).toBe(before);
        const early = await hashOnlyGet(client, id, headers);
        expect(hits.answered).toBe(before + 1);
        expect(early.headers['x-cache']).toBe('hit');
        expect(early.statusCode).toBe(200);
        expect(early.body).toBe(viaApollo.body);
        expect(stable(early.headers)).toEqual(stable(viaApollo.headers));
        expect(early.headers['x-sql-statements']).toBe('0');
        expect(JSON.parse(early.body).data.product.id).toBe(id);
        // The client's copy is still good: 304, no body.
        const revalidated = await hashOnlyGet(client, id, { ...headers, 'if-none-match': String(early.headers.etag) });
        expect(revalidated.statusCode).toBe(304);
        expect(revalidated.body).toBe('');
      }
    });
  });

  it('answer a browse page, whose cost and caps depend on its variables, checking them on every hit', async () => {
    const browse = 'query Browse($first: Int, $filter: ProductFilter) { productConnection(first: $first, filter: $filter) { edges { node { id name } } pageInfo { hasNextPage } } }';
    const browseHash = crypto.createHash('sha256').update(browse).digest('hex');
    await withClient({}, async (test) => {
      const byHash = (variables: Record<string, unknown>) => {
        const params = new URLSearchParams({ operationName: 'Browse', variables: JSON.stringify(variables), extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: browseHash } }) });
        return test.app.inject({ method: 'GET', url: `/graphql?${params}`, headers: { accept: 'application/graphql-response+json' } });
      };
      const registered = await test.app.inject({
        method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' },
        payload: { query: browse, operationName: 'Browse', variables: { first: 2 }, extensions: { persistedQuery: { version: 1, sha256Hash: browseHash } } },
      });
      expect(registered.statusCode).toBe(200);
      const hits = test.server.persistedHits!;
      const within = { first: 3, filter: { categories: ['Pants'] } };
      const miss = await byHash(within);
      expect(miss.headers['x-cache']).toBe('miss');
      const hit = await byHash(within);
      expect(hits.answered).toBe(1);
      expect(hit.headers['x-cache']).toBe('hit');
      expect(hit.body).toBe(miss.body);
      // Over the page-size cap: never a cached answer, Apollo's 400, whatever is cached.
      const over = await byHash({ ...within, first: 100_000 });
      expect(over.statusCode).toBe(400);
      expect(hits.answered).toBe(1);
    });
  });

  it('a write makes the next one a miss with the new data', async () => {
    await withClient({}, async (client) => {
      await register(client, '9');
      await hashOnlyGet(client, '9');
      expect((await hashOnlyGet(client, '9')).headers['x-cache']).toBe('hit');
      const renamed = await client.post('mutation { updateProduct(id: "9", input: { name: "Renamed for the early hit" }) { id } }');
      expect(renamed.body.errors).toBeUndefined();
      const after = await hashOnlyGet(client, '9');
      expect(after.headers['x-cache']).toBe('miss');
      expect(JSON.parse(after.body).data.product.name).toBe('Renamed for the early hit');
    });
  });

  it('pays the operation\'s rate-limit cost, and a spent budget is refused like any request', async () => {
    await withClient({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '40' }, async (client) => {
      await register(client, '10');
      await hashOnlyGet(client, '10');
      const first = await hashOnlyGet(client, '10');
      const second = await hashOnlyGet(client, '10');
      expect(second.headers['x-cache']).toBe('hit');
      const cost = Number(first.headers['ratelimit-remaining']) - Number(second.headers['ratelimit-remaining']);
      expect(cost).toBeGreaterThanOrEqual(1);
      let refused;
      for (let i = 0; i < 60 && !refused; i++) {
        const response = await hashOnlyGet(client, '10');
        if (response.statusCode === 429 || JSON.parse(response.body).errors?.[0]?.extensions?.code === 'RATE_LIMITED') refused = response;
      }
      expect(refused).toBeDefined();
      expect(refused!.headers['x-cache']).toBeUndefined();
    }, false);
  });

  it('needs the key reads need: without one, no cached answer', async () => {
    await withClient({ API_KEYS_FOR_READS: 'required' }, async (client) => {
      await register(client, '11');
      await hashOnlyGet(client, '11');
      expect((await hashOnlyGet(client, '11')).headers['x-cache']).toBe('hit');
      const anonymous = await client.injectAnonymous({ method: 'GET', url: `/graphql?operationName=Page&variables=${encodeURIComponent('{"id":"11"}')}&extensions=${extensions}` });
      expect(anonymous.statusCode).not.toBe(200);
      expect(anonymous.body).not.toContain('"product"');
    });
  });
});
