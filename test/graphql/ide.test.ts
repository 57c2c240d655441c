// The GraphiQL IDE at GET /graphql: served from local assets only, and working
// in a real (headless) Chromium with every non-local request blocked.
import type { Browser } from 'playwright-core';
import { launchChromium, openOfflinePage } from '../support/browser.ts';
import { rawGet } from '../support/raw-http.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type App } from '../../src/server.ts';
import { createTestCatalogue, type TestCatalogue } from '../support/catalogue-app.ts';

describe('GraphiQL IDE at GET /graphql', () => {
  let catalogue: TestCatalogue;
  let server: App;
  let baseUrl: string;
  let browser: Browser | undefined;
  /** The name of product 1, as stored. */
  let productName: string;

  beforeAll(async () => {
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below; don't let an early failure go unhandled meanwhile
    catalogue = await createTestCatalogue({ scale: 0.0001 });
    const rows = await catalogue.direct.rows<{ name: string }>('SELECT name FROM products WHERE id = 1');
    expect(rows).toHaveLength(1);
    productName = rows[0]!.name;
    // Development: the docs explorer needs introspection, which is off elsewhere by default.
    server = await buildServer(loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'development', PORT: '0' }), catalogue.db.url);
    baseUrl = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launching;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
    await catalogue?.dispose();
  });

  it('serves the page itself (no redirect) with only local, whitelisted, cacheable assets', async () => {
    const response = await fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();

    const tags = [...html.matchAll(/<(script|link)\b[^>]*>/g)].map((m) => m[0]);
    const urls = tags.map((tag) => /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1]).filter((url): url is string => url !== undefined);
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
    const { context, page, external, problems } = await openOfflinePage(browser!);
    try {
      const response = await page.goto(`${baseUrl}/graphql`);
      expect(response?.status()).toBe(200);
      expect(page.url()).toBe(`${baseUrl}/graphql`);

      // The editor opens with the example query.
      const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
      await queryEditor.waitFor({ timeout: 10_000 });
      await expect.poll(() => queryEditor.evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue())).toContain('query ProductWithStyles');

      // The docs explorer opens and lists Query's fields (from introspection).
      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.locator('.graphiql-doc-explorer');
      await docs.locator('.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).click({ timeout: 10_000 });
      await expect.poll(() => docs.locator('.graphiql-doc-explorer-field-name').allInnerTexts()).toEqual(expect.arrayContaining(['product', 'products', 'productConnection']));

      // Run it: the response pane shows product 1 from the database.
      // The example holds several operations: GraphiQL asks which one to run.
      await page.locator('.graphiql-execute-button').click();
      await page.getByRole('menuitem', { name: 'ProductWithStyles' }).click({ timeout: 10_000 });
      const resultPane = page.locator('.graphiql-response .CodeMirror');
      const resultText = () => resultPane.evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
      await expect.poll(resultText, { timeout: 10_000 }).toContain(productName);
      const result = JSON.parse(await resultText()) as { data?: { product?: { id: string; name: string; styles: unknown[] } }; errors?: unknown };
      expect(result.errors).toBeUndefined();
      expect(result.data?.product).toMatchObject({ id: '1', name: productName });
      expect(Array.isArray(result.data?.product?.styles)).toBe(true);
    } finally {
      await context.close();
    }
    expect(external).toEqual([]);
    expect(problems).toEqual([]);
  });
});
