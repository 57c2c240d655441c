// HTTP caching for browsers and CDNs (src/http/http-caching.ts), by HTTP
// alone; test/http/browser-caching.test.ts does it again in Chromium.
// Strong ETags on every cacheable answer, 304 without SQL from the response
// cache, `no-cache` by default, Vary on what the answer depends on, surrogate
// keys naming the products shown, and the purge hook called after every
// write with the tags the response cache dropped.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { ALL_TAG, CATALOGUE_TAG, MAX_SURROGATE_KEYS } from '../../src/http/http-caching.ts';
import { CdnPurge } from '../../src/cache/cdn-purge.ts';
import { PurgeReceiver } from '../support/purge-receiver.ts';

const catalogue = useTestCatalogue();

const PRODUCT_QUERY = '{ product(id: "3") { id name styles { name skus { size quantity } } related { id } } }';
const graphqlGet = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;

describe('defaults, response cache on', () => {
  const client = useTestClient(catalogue, { env: { CACHE: 'on' } });

  it.each([
    ['GraphQL GET', graphqlGet(PRODUCT_QUERY)],
    ['REST detail', '/products/3'],
    ['REST styles', '/products/3/styles'],
    ['REST related', '/products/3/related'],
    ['REST list', '/products?page=1&count=3'],
  ])('%s: no-cache, a strong ETag, and If-None-Match is a 304 without a body or SQL', async (_name, url) => {
    const first = await client.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await client.app.inject({ method: 'GET', url, headers: { accept: 'application/json', 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.headers['x-sql-statements']).toBe('0');
    // A list of tags, one of them weak, matches too (RFC 9110 weak comparison); another tag does not.
    expect((await client.app.inject({ method: 'GET', url, headers: { accept: 'application/json', 'if-none-match': `"nope", W/${etag}` } })).statusCode).toBe(304);
    expect((await client.app.inject({ method: 'GET', url, headers: { accept: 'application/json', 'if-none-match': '"nope"' } })).statusCode).toBe(200);
  });

  it('GraphQL answers vary on Accept; the same bytes as another media type have another tag', async () => {
    const asJson = await client.app.inject({ method: 'GET', url: graphqlGet(PRODUCT_QUERY), headers: { accept: 'application/json' } });
    const asGraphql = await client.app.inject({ method: 'GET', url: graphqlGet(PRODUCT_QUERY), headers: { accept: 'application/graphql-response+json' } });
    for (const response of [asJson, asGraphql]) expect(response.headers.vary).toMatch(/\bAccept\b/);
    expect(asJson.headers['content-type']).toContain('application/json');
    expect(asGraphql.headers['content-type']).toContain('application/graphql-response+json');
    expect(asJson.body).toBe(asGraphql.body);
    expect(asJson.headers.etag).not.toBe(asGraphql.headers.etag);
    const crossed = await client.app.inject({ method: 'GET', url: graphqlGet(PRODUCT_QUERY), headers: { accept: 'application/json', 'if-none-match': asGraphql.headers.etag as string } });
    expect(crossed.statusCode).toBe(200);
  });

  it('an answer showing more products than MAX_SURROGATE_KEYS names ALL_TAG instead: headers stay small', async () => {
    const response = await client.app.inject({ method: 'GET', url: graphqlGet('{ products(count: 100) { id related { id } } }'), headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect((response.headers['surrogate-key'] as string).split(' ')).toEqual(['listing', ALL_TAG, CATALOGUE_TAG]);
    expect(response.headers['cache-tag']).toBe(`listing,${ALL_TAG},${CATALOGUE_TAG}`);
    const few = await client.app.inject({ method: 'GET', url: graphqlGet('{ products(count: 3) { id } }'), headers: { accept: 'application/json' } });
    expect((few.headers['surrogate-key'] as string).split(' ').length).toBeLessThanOrEqual(MAX_SURROGATE_KEYS + 1);
    expect(few.headers['surrogate-key']).not.toContain(ALL_TAG);
  });

  it('surrogate keys name the products an answer shows, related ones included, in the response cache tags', async () => {
    const response = await client.app.inject({ method: 'GET', url: graphqlGet(PRODUCT_QUERY), headers: { accept: 'application/json' } });
    const related = (JSON.parse(response.body) as { data: { product: { related: { id: string }[] } } }).data.product.related.map((product) => `p:${product.id}`);
    const keys = (response.headers['surrogate-key'] as string).split(' ');
    expect(keys).toEqual(expect.arrayContaining(['p:3', ...related]));
    expect((response.headers['cache-tag'] as string).split(',').sort()).toEqual([...keys].sort());
    const list = await client.app.inject({ method: 'GET', url: '/products?page=1&count=3' });
    expect((list.headers['surrogate-key'] as string).split(' ')).toEqual(expect.arrayContaining(['listing', 'p:1', 'p:2', 'p:3']));
    // From the response cache too (the loaders read nothing on a hit).
    const hit = await client.app.inject({ method: 'GET', url: graphqlGet(PRODUCT_QUERY), headers: { accept: 'application/json' } });
    expect(hit.headers['x-cache']).toBe('hit');
    expect((hit.headers['surrogate-key'] as string).split(' ').sort()).toEqual([...keys].sort());
  });

  it('after a write the same request gets the new answer, under a new ETag', async () => {
    const before = await client.app.inject({ method: 'GET', url: '/products/4' });
    const etag = before.headers.etag as string;
    const put = await client.app.inject({ method: 'PUT', url: '/products/4', payload: { name: 'Renamed for the ETag test' } });
    expect(put.statusCode).toBe(200);
    const after = await client.app.inject({ method: 'GET', url: '/products/4', headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(JSON.parse(after.body).name).toBe('Renamed for the ETag test');
    expect(after.headers.etag).not.toBe(etag);
  });

  it('no error answer, POST or mutation is reusable: no-store, no ETag', async () => {
    const answers = [
      await client.app.inject({ method: 'GET', url: '/products/abc' }),
      await client.app.inject({ method: 'GET', url: graphqlGet('{ product(id: "abc") { id } }') }),
      await client.app.inject({ method: 'GET', url: graphqlGet('{ nope }') }),
      await client.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ product(id: "3") { id } }' } }),
      await client.app.inject({ method: 'POST', url: '/graphql', payload: { query: 'mutation { deleteProduct(id: "999999") }' } }),
    ];
    for (const response of answers) {
      expect(response.headers['cache-control'], response.body).toBe('no-store');
      expect(response.headers.etag).toBeUndefined();
    }
  });
});

describe('configured lifetimes, and reads that need a key', () => {
  const client = useTestClient(catalogue, {
    env: { HTTP_CACHE_MAX_AGE_SECONDS: '20', HTTP_CACHE_SHARED_MAX_AGE_SECONDS: '3600', API_KEYS_FOR_READS: 'required' },
  });

  it('max-age and s-maxage where configured, never past the schema hint of what is shown', async () => {
    const detail = await client.app.inject({ method: 'GET', url: '/products/3' });
    expect(detail.headers['cache-control']).toBe('public, max-age=20, s-maxage=60');
    // Styles show stock levels: the Sku hint (10 s) bounds both.
    const styles = await client.app.inject({ method: 'GET', url: '/products/3/styles' });
    expect(styles.headers['cache-control']).toBe('public, max-age=10, s-maxage=10');
    const list = await client.app.inject({ method: 'GET', url: '/products' });
    expect(list.headers['cache-control']).toBe('public, max-age=20, s-maxage=30');
  });

  it('vary on the credentials when reads need a key (and on Accept for GraphQL)', async () => {
    const rest = await client.app.inject({ method: 'GET', url: '/products/3' });
    expect(rest.headers.vary).toBe('Authorization, X-API-Key');
    const graphql = await client.app.inject({ method: 'GET', url: graphqlGet('{ product(id: "3") { id } }') });
    expect(graphql.headers.vary).toBe('Accept, Authorization, X-API-Key');
    const anonymous = await client.injectAnonymous({ method: 'GET', url: '/products/3' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('CDN purge hook', () => {
  let client: TestClient;
  let receiver: PurgeReceiver;
  beforeAll(async () => {
    receiver = new PurgeReceiver();
    const url = await receiver.start();
    client = await createTestClient(catalogue.db.url, { env: { CACHE: 'on', CDN_PURGE_URL: url, CDN_PURGE_TOKEN: 'purge-secret-1' } });
  });
  afterAll(async () => {
    await client?.close();
    await receiver?.close();
  });

  it('every write, REST or GraphQL, purges the tags the response cache dropped, with the token', async () => {
    const put = await client.app.inject({ method: 'PUT', url: '/products/5', payload: { slogan: 'purged' } });
    expect(put.statusCode).toBe(200);
    await receiver.waitFor(['p:5', ALL_TAG]);
    expect(receiver.tags()).not.toContain('listing');
    const mutation = await client.post('mutation { updateProduct(id: "6", input: { slogan: "purged too" }) { id } }');
    expect(mutation.body.errors).toBeUndefined();
    await receiver.waitFor(['p:6']);
    const created = await client.app.inject({ method: 'POST', url: '/products', payload: { name: 'n', slogan: 's', description: 'd', category: 'c', default_price: '1' } });
    expect(created.statusCode).toBe(201);
    const id = (JSON.parse(created.body) as { id: number }).id;
    await receiver.waitFor([`p:${id}`, 'listing']);
    // Deleting a product changes those that list it as related too.
    const { product_id: referencing, related_product_id: target } = await catalogue.direct.one<{ product_id: number; related_product_id: number }>(
      'SELECT current_product_id AS product_id, related_product_id FROM related WHERE related_product_id <> current_product_id AND current_product_id > 10 AND related_product_id > 10 ORDER BY id LIMIT 1');
    expect((await client.app.inject({ method: 'DELETE', url: `/products/${target}` })).statusCode).toBe(204);
    await receiver.waitFor([`p:${target}`, `p:${referencing}`]);
    for (const call of receiver.calls) {
      expect(call.authorization).toBe('Bearer purge-secret-1');
      expect(call.surrogateKey).toBe(call.tags.join(' '));
    }
  });

  it('a purge the CDN fails is retried until it goes through', async () => {
    receiver.statuses.push(503, 500);
    const put = await client.app.inject({ method: 'PUT', url: '/products/7', payload: { slogan: 'retried' } });
    expect(put.statusCode).toBe(200);
    await receiver.waitFor(['p:7'], 10_000);
    expect(receiver.statuses).toEqual([]);
  });
});

describe('CdnPurge against a purge URL that never answers', () => {
  it('writes never wait, and shutdown takes about two request timeouts however much is queued; every tag given up is counted', async () => {
    const hanging = http.createServer(() => { /* never answers */ });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const warnings: string[] = [];
    const purge = new CdnPurge({
      url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/purge`,
      warn: (message) => warnings.push(message), timeoutMs: 300, batchMs: 5,
    });
    try {
      const queued = performance.now();
      for (let id = 1; id <= 3000; id++) purge.purge([`p:${id}`]);
      // Never waiting for the network: 3,000 calls answered in well under one request timeout's worth each.
      expect(performance.now() - queued).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = performance.now();
      await purge.close();
      // About two request timeouts (300 ms), not one per batch: well under 5 s on a loaded host.
      expect(performance.now() - closing).toBeLessThan(5_000);
      expect(purge.stats.dropped).toBe(3000);
      expect(purge.stats.sent).toBe(0);
      expect(warnings.length).toBeGreaterThan(0);
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });
});

describe('REST writes and errors', () => {
  const client = useTestClient(catalogue);

  it('writes, unknown routes and bad requests are never reusable; an unknown product\'s 404 is, like the product would be', async () => {
    const created = await client.app.inject({ method: 'POST', url: '/products', payload: { name: 'n', slogan: 's', description: 'd', category: 'c', default_price: '1' } });
    expect(created.statusCode).toBe(201);
    const id = (JSON.parse(created.body) as { id: number }).id;
    const put = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { slogan: 't' } });
    const removed = await client.app.inject({ method: 'DELETE', url: `/products/${id}` });
    const unknownRoute = await client.app.inject({ method: 'GET', url: '/products/1/nope' });
    const bad = await client.app.inject({ method: 'GET', url: '/products?count=nope' });
    for (const response of [created, put, removed, unknownRoute, bad]) expect(response.headers['cache-control'], `${response.statusCode} ${response.body}`).toBe('no-store');
    const gone = await client.app.inject({ method: 'GET', url: `/products/${id}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['cache-control']).toBe('no-cache');
    expect(gone.headers['surrogate-key']).toBe(`p:${id} ${CATALOGUE_TAG}`);
  });

  it('If-None-Match on a write: 412 and nothing written when the product is at an excluded version, or exists at all for *', async () => {
    const read = await client.app.inject({ method: 'GET', url: '/products/9' });
    const etag = read.headers.etag as string;
    const excluded = await client.app.inject({ method: 'PUT', url: '/products/9', payload: { slogan: 'never' }, headers: { 'if-none-match': `W/${etag}` } });
    expect(excluded.statusCode).toBe(412);
    expect(excluded.headers.etag).toBe(etag);
    const any = await client.app.inject({ method: 'DELETE', url: '/products/9', headers: { 'if-none-match': '*' } });
    expect(any.statusCode).toBe(412);
    const after = await client.app.inject({ method: 'GET', url: '/products/9' });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).toBe(etag);
    const other = await client.app.inject({ method: 'PUT', url: '/products/9', payload: { slogan: 'written' }, headers: { 'if-none-match': '"1"' } });
    expect(other.statusCode).toBe(200);
    expect(JSON.parse(other.body).slogan).toBe('written');
  });
});
