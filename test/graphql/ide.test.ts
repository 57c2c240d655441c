// GET /graphql from a browser, in a real (headless) Chromium with every
// non-local request blocked: GraphiQL where the IDE is on (development by
// default), served from local assets only, running queries and subscriptions
// (graphql-ws on the same URL, the key from the IDE's headers editor; also
// through deploy/nginx/nginx.conf); a
// landing page where it is off (production by default), and GraphiQL without
// docs where it is switched on without introspection.
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openOfflinePage, type OfflinePage } from '../support/browser.ts';
import { rawGet } from '../support/raw-http.ts';
import { nginxAvailable } from '../support/nginx.ts';
import { type RunningNginx, startNginx } from '../../bench/lib/nginx.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANDING_QUERY } from '../../src/graphql/ide.ts';
import { createTestApiKey, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';

const GRAPHIQL_VERSION = (createRequire(import.meta.url)('graphiql/package.json') as { version: string }).version;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const catalogue = useTestCatalogue({ scale: 0.0001 });
let browser: Browser | undefined;
/** The name of product 1, as stored. */
let productName: string;

beforeAll(async () => {
  const rows = await catalogue.direct.rows<{ name: string }>('SELECT name FROM products WHERE id = 1');
  expect(rows).toHaveLength(1);
  productName = rows[0]!.name;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** A test client listening on a port of its own; returns its base URL once it listens. */
function listening(client: TestClient): () => Promise<string> {
  let base: string | undefined;
  return async () => base ??= await client.app.listen({ port: 0, host: '127.0.0.1' });
}

/** The text of a CodeMirror editor (GraphiQL's query, headers and result panes). */
function editorText(page: Page, selector: string): Promise<string> {
  return page.locator(selector).evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
}

function setEditorText(page: Page, selector: string, text: string): Promise<void> {
  return page.locator(selector).evaluate((el, value) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(value), text);
}

/** Types an anonymous operation into the query editor and waits until GraphiQL has taken it in (it does so after a pause). */
async function setAnonymousOperation(page: Page, text: string): Promise<void> {
  await setEditorText(page, QUERY_EDITOR, text);
  await expect.poll(() => page.locator('.graphiql-tab-active').innerText()).toBe('<untitled>');
}

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const RESULT_PANE = '.graphiql-response .CodeMirror';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

/** Opens /graphql in a fresh offline page, runs `steps`, closes the page whatever happens; then no external request and no problem. */
async function inPage(base: string, steps: (opened: OfflinePage) => Promise<void>): Promise<void> {
  const opened = await openOfflinePage(browser!);
  try {
    const response = await opened.page.goto(`${base}/graphql`);
    expect(response?.status()).toBe(200);
    expect(opened.page.url()).toBe(`${base}/graphql`);
    await steps(opened);
  } catch (error) {
    // What the page said goes with the failure.
    if (error instanceof Error && opened.problems.length > 0) error.message += `\nin the page: ${opened.problems.join('\n')}`;
    throw error;
  } finally {
    await opened.context.close();
  }
  expect(opened.external).toEqual([]);
  expect(opened.problems).toEqual([]);
}

describe('development (GraphiQL, introspection on)', () => {
  const client = useTestClient(catalogue, { nodeEnv: 'development' });
  const base = listening(client);
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await base();
  });

  it('serves the page itself (no redirect) with only local, whitelisted, cacheable assets', async () => {
    const response = await fetch(`${baseUrl}/graphql`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();

    const tags = [...html.matchAll(/<(script|link)\b[^>]*>/g)].map((m) => m[0]);
    // The empty icon (data:,) is inline: nothing is fetched for it.
    expect(tags).toContain('<link rel="icon" href="data:,">');
    const urls = tags.map((tag) => /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1]).filter((url): url is string => url !== undefined && url !== 'data:,');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline scripts
    expect(urls.some((url) => url.endsWith('.js'))).toBe(true);
    expect(urls.some((url) => url.endsWith('.css'))).toBe(true);
    for (const url of urls) expect(url).toMatch(/^\/graphql\/assets\/[\w.@-]+$/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

    for (const url of urls) {
      const asset = await fetch(baseUrl + url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toMatch(url.endsWith('.css') ? /^text\/css/ : /^(text|application)\/javascript/);
      expect(asset.headers.get('cache-control'), url).toMatch(/max-age=31536000/);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
      const etag = asset.headers.get('etag');
      expect(etag, url).toBeTruthy();
      expect((await fetch(baseUrl + url, { headers: { 'if-none-match': etag! } })).status, url).toBe(304);
    }
    // The big bundle goes out gzipped to clients that accept it.
    const bundle = urls.find((url) => /graphiql[^/]*\.js$/.test(url))!;
    expect((await fetch(baseUrl + bundle, { headers: { 'accept-encoding': 'gzip' } })).headers.get('content-encoding')).toBe('gzip');
  });

  it('answers 404 for anything under /graphql/assets/ that is not whitelisted', async () => {
    for (const rawPath of [
      '/graphql/assets/../../package.json',
      '/graphql/assets/..%2F..%2Fpackage.json',
      '/graphql/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/graphql/assets/package.json',
      '/graphql/assets/graphiql.min.js',
      '/graphql/assets/react/umd/react.production.min.js',
      '/graphql/assets/',
      '/graphql/assets/constructor',
      '/graphql/ide',
    ]) {
      const response = await rawGet(baseUrl, rawPath);
      expect(response.status, rawPath).toBe(404);
      expect(response.body, rawPath).not.toContain('"dependencies"');
    }
  });

  it('still answers GraphQL over GET with JSON, browser Accept header or not', async () => {
    for (const accept of ['application/json', 'text/html,application/json;q=0.9']) {
      const response = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent('{__typename}')}`, { headers: { accept } });
      expect(response.status, accept).toBe(200);
      expect(response.headers.get('content-type'), accept).toMatch(/json/);
      expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
    }
  });

  it('works in Chromium with no external requests: docs explorer, example query, run', async () => {
    await inPage(baseUrl, async ({ page }) => {
      // The editor opens with the example query.
      await page.locator(QUERY_EDITOR).waitFor({ timeout: 10_000 });
      await expect.poll(() => editorText(page, QUERY_EDITOR)).toContain('query ProductWithStyles');

      // The docs explorer opens and lists Query's fields (from introspection).
      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.locator('.graphiql-doc-explorer');
      await docs.locator('.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).click({ timeout: 10_000 });
      await expect.poll(() => docs.locator('.graphiql-doc-explorer-field-name').allInnerTexts()).toEqual(expect.arrayContaining(['product', 'products', 'productConnection']));

      // Run it: the response pane shows product 1 from the database.
      // The example holds several operations: GraphiQL asks which one to run.
      await page.locator('.graphiql-execute-button').click();
      await page.getByRole('menuitem', { name: 'ProductWithStyles' }).click({ timeout: 10_000 });
      await expect.poll(() => editorText(page, RESULT_PANE), { timeout: 10_000 }).toContain(productName);
      const result = JSON.parse(await editorText(page, RESULT_PANE)) as { data?: { product?: { id: string; name: string; styles: unknown[] } }; errors?: unknown };
      expect(result.errors).toBeUndefined();
      expect(result.data?.product).toMatchObject({ id: '1', name: productName });
      expect(Array.isArray(result.data?.product?.styles)).toBe(true);
    });
  });

  it('runs a subscription over graphql-ws on /graphql with the key from its headers: the current state, then a pushed change', async () => {
    await subscribeInIde(baseUrl, baseUrl);
  });

  describe.skipIf(!nginxAvailable())('behind deploy/nginx/nginx.conf', () => {
    let nginx: RunningNginx | undefined;
    beforeAll(async () => {
      nginx = await startNginx([new URL(baseUrl).host]);
    });
    afterAll(async () => {
      await nginx?.stop();
    });

    it('runs the subscription through nginx: the WebSocket goes to the address the page was loaded from', async () => {
      await subscribeInIde(nginx!.url, baseUrl);
    });
  });

  /**
   * Opens GraphiQL at `pageBase`, runs productChanged on product 1 (first
   * with an unknown key in the headers editor, refused; then a valid one),
   * writes through the API at `apiBase`, and sees the change in the result
   * pane. Product 1's name is restored whatever happens.
   */
  async function subscribeInIde(pageBase: string, apiBase: string): Promise<void> {
    const key = await createTestApiKey(catalogue.db.url, { name: 'ide-subscriber' });
    const unknownKey = `cat_${'A'.repeat(43)}`;
    const sockets: string[] = [];
    try {
      await inPage(pageBase, async ({ page }) => {
        page.on('websocket', (socket) => sockets.push(socket.url()));
        await page.locator(QUERY_EDITOR).waitFor({ timeout: 10_000 });
        const result = async () => JSON.parse(await editorText(page, RESULT_PANE)) as { data?: { productChanged?: { id: string; product: { name: string } | null } }; errors?: { message: string }[] };
        await setAnonymousOperation(page, 'subscription { productChanged(ids: ["1"]) { id product { name } } }');

        // The headers editor's key goes to the server in connection_init: an unknown one is refused.
        await page.getByRole('button', { name: 'Headers' }).click();
        await setEditorText(page, HEADERS_EDITOR, JSON.stringify({ 'x-api-key': unknownKey }));
        await page.locator('.graphiql-execute-button').click();
        await expect.poll(() => editorText(page, RESULT_PANE), { timeout: 10_000 }).toMatch(/4401|invalid|unknown|revoked/i);

        // A valid key: the current state first.
        await setEditorText(page, HEADERS_EDITOR, JSON.stringify({ 'x-api-key': key }));
        await page.locator('.graphiql-execute-button').click();
        await expect.poll(async () => (await result()).data?.productChanged, { timeout: 10_000 }).toEqual({ id: '1', product: { name: productName } });

        // A write through the API: the pushed change replaces it in the result pane.
        const renamed = `${productName} (live)`;
        const write = await fetch(`${apiBase}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ query: 'mutation($name: String!) { updateProduct(id: "1", input: { name: $name }) { id } }', variables: { name: renamed } }),
        });
        expect(write.status).toBe(200);
        expect(((await write.json()) as { errors?: unknown }).errors).toBeUndefined();
        await expect.poll(async () => (await result()).data?.productChanged, { timeout: 10_000 }).toEqual({ id: '1', product: { name: renamed } });
      });
    } finally {
      await client.post('mutation($name: String!) { updateProduct(id: "1", input: { name: $name }) { id } }', { name: productName });
    }
    // Same origin, the page's scheme: ws://host:port/graphql.
    expect(sockets.length).toBeGreaterThan(0);
    for (const url of sockets) expect(url).toBe(`${pageBase.replace(/^http/, 'ws')}/graphql`);
  }
});

describe('production (the IDE off: a landing page)', () => {
  const client = useTestClient(catalogue, { nodeEnv: 'production' });
  const base = listening(client);
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await base();
  });

  it('answers a browser with the landing page: no scripts but its own, cacheable only with revalidation, varying by Accept', async () => {
    const response = await fetch(`${baseUrl}/graphql`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('vary')?.toLowerCase()).toContain('accept');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).not.toContain('/graphql/assets/graphiql');
    expect(html).toContain('GRAPHQL_IDE=on');
    // An icon of its own, so the browser does not ask for /favicon.ico (a 404 in its console).
    expect(html).toContain('<link rel="icon" href="data:,">');
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect((await fetch(baseUrl + scripts[0])).status).toBe(200);
    // GraphiQL's assets are not served here.
    expect((await fetch(`${baseUrl}/graphql/assets/graphiql-${GRAPHIQL_VERSION}.min.js`)).status).toBe(404);
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await fetch(`${baseUrl}/graphql`, { headers: { accept: BROWSER_ACCEPT, 'if-none-match': etag! } })).status).toBe(304);
  });

  it('leaves GraphQL GETs alone: a query or a persisted hash is answered in JSON, even to a browser\'s Accept', async () => {
    // The landing page's persisted-query example, as it says: registered by POST, then by its hash alone.
    const page = await (await fetch(`${baseUrl}/graphql`, { headers: { accept: BROWSER_ACCEPT } })).text();
    const hash = /"sha256Hash":"([0-9a-f]{64})"/.exec(page.replaceAll('&#34;', '"'))?.[1];
    expect(hash).toBeDefined();
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
    const registered = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: LANDING_QUERY, extensions: JSON.parse(extensions) }) });
    expect(await registered.json()).toMatchObject({ data: { product: { id: '1', name: productName } } });
    for (const accept of ['application/json', BROWSER_ACCEPT]) {
      const byHash = await fetch(`${baseUrl}/graphql?extensions=${encodeURIComponent(extensions)}`, { headers: { accept } });
      expect(byHash.status, accept).toBe(200);
      expect(byHash.headers.get('content-type'), accept).toMatch(/json/);
      expect(await byHash.json(), accept).toMatchObject({ data: { product: { id: '1', name: productName } } });
      const byText = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent('{__typename}')}`, { headers: { accept } });
      expect(await byText.json(), accept).toEqual({ data: { __typename: 'Query' } });
    }
  });

  it('shows the landing page in Chromium: what the endpoint is, how to query it, how to turn the IDE on; no errors', async () => {
    await inPage(baseUrl, async ({ page }) => {
      await expect.poll(() => page.locator('h1').innerText()).toContain('GraphQL');
      const text = await page.locator('body').innerText();
      expect(text).toContain(`curl -s ${baseUrl}/graphql`);
      expect(text).toContain('x-api-key');
      expect(text).toContain('persistedQuery');
      expect(text).toMatch(/Turn the IDE on/i);
      expect(text).toContain('GRAPHQL_IDE=on');
      expect(text).toContain('GRAPHQL_INTROSPECTION=on');
      expect(text).not.toMatch(/introspection has been disabled/i);
      expect(await page.locator('.graphiql-container').count()).toBe(0);
    });
  });
});

describe('production with GRAPHQL_IDE=on (introspection still off)', () => {
  const client = useTestClient(catalogue, { nodeEnv: 'production', env: { GRAPHQL_IDE: 'on' } });
  const base = listening(client);

  it('serves GraphiQL without asking for the schema it would be refused, and runs queries', async () => {
    await inPage(await base(), async ({ page }) => {
      await page.locator(QUERY_EDITOR).waitFor({ timeout: 10_000 });
      await setAnonymousOperation(page, '{ product(id: "1") { id name } }');
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => editorText(page, RESULT_PANE), { timeout: 10_000 }).toContain(productName);
      expect(JSON.parse(await editorText(page, RESULT_PANE))).toEqual({ data: { product: { id: '1', name: productName } } });
      expect(await editorText(page, RESULT_PANE)).not.toMatch(/introspection/i);
    });
  });
});
