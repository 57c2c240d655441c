// What a browser does with the API, in a real Chromium: a page on another
// loopback origin calls it across origins (CORS: preflights, exposed headers,
// the allowlist), and the browser's HTTP cache never shows that page data
// older than a write it made (no-cache + ETag revalidation by default). With
// a configured max-age the same steps do show the old data: the default is
// what makes the difference.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, useTestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { launchChromium } from '../support/browser.ts';

const catalogue = useTestCatalogue();
let browser: Browser;
/** Serves an empty page: the origin the scripts run in. */
let pageServer: http.Server;
let pageOrigin: string;

beforeAll(async () => {
  browser = await launchChromium();
  pageServer = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>front end</title>'));
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

interface Served { method: string; url: string; status: number }

/** The API on a port of its own (another origin than the page's), with what it served, from its request log. */
async function startApi(env: Record<string, string>): Promise<{ client: TestClient; origin: string; served: Served[] }> {
  const served: Served[] = [];
  const logDestination = {
    write(line: string) {
      const entry = JSON.parse(line) as Served & { msg: string };
      if (entry.msg === 'request completed') served.push({ method: entry.method, url: entry.url, status: entry.status });
    },
  };
  const client = await createTestClient(catalogue.db.url, { env: { CACHE: 'on', LOG_LEVEL: 'info', ...env }, logDestination });
  return { client, origin: await client.app.listen({ host: '127.0.0.1', port: 0 }), served };
}

/** A fresh browser profile (its own HTTP cache) on the page's origin; requests to the API recorded with the headers Chromium sent. */
async function openPage(): Promise<{ page: Page; sent: { method: string; url: string; headers: Record<string, string> }[]; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const sent: { method: string; url: string; headers: Record<string, string> }[] = [];
  page.on('requestfinished', (request) => {
    void request.allHeaders().then((headers) => sent.push({ method: request.method(), url: request.url(), headers }));
  });
  await page.goto(pageOrigin);
  return { page, sent, close: () => context.close() };
}

interface FetchResult { ok: boolean; status?: number; body?: unknown; headers?: Record<string, string | null>; error?: string }

/** fetch() run by the page itself, so Chromium applies CORS and its HTTP cache. */
function pageFetch(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<FetchResult> {
  return page.evaluate(async ({ url, init }) => {
    try {
      const response = await fetch(url, init);
      const read = ['x-request-id', 'etag', 'ratelimit-remaining', 'x-cache', 'x-sql-statements', 'cache-control', 'content-type'];
      return { ok: true, status: response.status, body: await response.json(), headers: Object.fromEntries(read.map((name) => [name, response.headers.get(name)])) };
    } catch (error) {
      return { ok: false, error: String(error) };
    }
  }, { url, init });
}

const nameQuery = (id: number) => `/graphql?query=${encodeURIComponent(`{ product(id: "${id}") { id name } }`)}`;
const rename = (id: number, name: string) => JSON.stringify({ query: `mutation { updateProduct(id: "${id}", input: { name: "${name}" }) { id name } }` });
const nameOf = (result: FetchResult) => (result.body as { data?: { product?: { name: string } } }).data?.product?.name;

describe('CORS, an allowlisted origin', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  beforeAll(async () => {
    api = await startApi({ CORS_ORIGINS: pageOrigin, RATE_LIMIT: 'on' });
  });
  afterAll(async () => {
    await api?.client.close();
  });

  it('runs a query, and with a key a mutation (preflighted); reads the exposed headers', async () => {
    const { page, sent, close } = await openPage();
    try {
      const query = await pageFetch(page, `${api.origin}${nameQuery(8)}`);
      expect(query.ok, query.error).toBe(true);
      expect(query.status).toBe(200);
      expect(nameOf(query)).toBeTruthy();
      expect(query.headers?.['x-request-id']).toBeTruthy();
      expect(query.headers?.etag).toMatch(/^"/);
      expect(query.headers?.['x-sql-statements']).not.toBeNull();
      const mutation = await pageFetch(page, `${api.origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.client.apiKey}` },
        body: rename(8, 'Renamed across origins'),
      });
      expect(mutation.ok, mutation.error).toBe(true);
      expect(mutation.body).toEqual({ data: { updateProduct: { id: '8', name: 'Renamed across origins' } } });
      expect(mutation.headers?.['ratelimit-remaining']).not.toBeNull();
      // The browser asked first (JSON body and Authorization are not "simple").
      expect(api.served.some((request) => request.method === 'OPTIONS' && request.url === '/graphql' && request.status === 204)).toBe(true);
      // REST too, with If-Match read from the exposed ETag.
      const detail = await pageFetch(page, `${api.origin}/products/8`);
      const put = await pageFetch(page, `${api.origin}/products/8`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': api.client.apiKey!, 'if-match': detail.headers!.etag! },
        body: JSON.stringify({ slogan: 'from another origin' }),
      });
      expect(put.status).toBe(200);
    } finally {
      await close();
    }
  });

  it('a preflight is answered once and cached (Access-Control-Max-Age)', async () => {
    const preflight = await fetch(`${api.origin}/graphql`, { method: 'OPTIONS', headers: { origin: pageOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type,authorization');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('vary')).toMatch(/Origin/);
    const { page, close } = await openPage();
    try {
      const preflights = () => api.served.filter((request) => request.method === 'OPTIONS' && request.url === '/graphql?three').length;
      const before = preflights();
      for (let i = 0; i < 3; i++) {
        const result = await pageFetch(page, `${api.origin}/graphql?three`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ product(id: "9") { id } }' }) });
        expect(result.status).toBe(200);
      }
      expect(preflights() - before).toBe(1);
    } finally {
      await close();
    }
  });

  it('an origin not on the list gets no CORS headers: the browser refuses to hand over the answer', async () => {
    const other = await startApi({ CORS_ORIGINS: 'http://127.0.0.1:1' });
    const { page, close } = await openPage();
    try {
      const refused = await pageFetch(page, `${other.origin}${nameQuery(8)}`);
      expect(refused.ok).toBe(false);
      expect(refused.error).toMatch(/Failed to fetch/);
    } finally {
      await close();
      await other.client.close();
    }
  });
});

describe('the browser HTTP cache', () => {
  it('default (no-cache + ETag): GET, mutation, the same GET shows the new data; an unchanged GET is revalidated (304)', async () => {
    const api = await startApi({});
    const { page, sent, close } = await openPage();
    try {
      const before = await pageFetch(page, `${api.origin}${nameQuery(10)}`);
      expect(before.headers?.['cache-control']).toBe('no-cache');
      const mutation = await pageFetch(page, `${api.origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api.client.apiKey}` }, body: rename(10, 'Fresh in the browser') });
      expect(mutation.status).toBe(200);
      const after = await pageFetch(page, `${api.origin}${nameQuery(10)}`);
      expect(nameOf(after)).toBe('Fresh in the browser');
      expect(nameOf(before)).not.toBe('Fresh in the browser');
      // Nothing changed since: the browser revalidates, and gets a 304 from the response cache.
      const unchanged = await pageFetch(page, `${api.origin}${nameQuery(10)}`);
      expect(nameOf(unchanged)).toBe('Fresh in the browser');
      await expect.poll(() => sent.filter((request) => request.url.endsWith(nameQuery(10))).length).toBe(3);
      const revalidation = sent.filter((request) => request.url.endsWith(nameQuery(10)))[2]!;
      expect(revalidation.headers['if-none-match']).toBe(after.headers?.etag);
      expect(api.served.filter((request) => request.url === nameQuery(10)).map((request) => request.status)).toEqual([200, 200, 304]);
    } finally {
      await close();
      await api.client.close();
    }
  });

  it('with HTTP_CACHE_MAX_AGE_SECONDS=60 the same steps show the old name: max-age is only for data that may lag', async () => {
    const api = await startApi({ HTTP_CACHE_MAX_AGE_SECONDS: '60' });
    const { page, close } = await openPage();
    try {
      const before = await pageFetch(page, `${api.origin}${nameQuery(11)}`);
      expect(before.headers?.['cache-control']).toBe('public, max-age=60');
      await pageFetch(page, `${api.origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api.client.apiKey}` }, body: rename(11, 'Stale in the browser') });
      const after = await pageFetch(page, `${api.origin}${nameQuery(11)}`);
      expect(nameOf(after)).toBe(nameOf(before));
    } finally {
      await close();
      await api.client.close();
    }
  });
});
