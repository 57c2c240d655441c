// Swagger UI at GET /docs: served from local assets only, and working in a
// real (headless) Chromium with every non-local request blocked: it renders the
// operations of /openapi.json and "Try it out" on GET /products shows data from
// the database.
import type { Browser } from 'playwright-core';
import { launchChromium, openOfflinePage } from '../support/browser.ts';
import { rawGet } from '../support/raw-http.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type App } from '../../src/server.ts';
import { createTestCatalogue, type TestCatalogue } from '../support/catalogue-app.ts';

describe('Swagger UI at GET /docs', () => {
  let catalogue: TestCatalogue;
  let server: App;
  let baseUrl: string;
  let browser: Browser | undefined;
  /** The first five products, as stored (what GET /products answers by default). */
  let firstNames: string[];

  beforeAll(async () => {
    const launching = launchChromium();
    launching.catch(() => undefined); // awaited below; don't let an early failure go unhandled meanwhile
    catalogue = await createTestCatalogue({ scale: 0.0001 });
    const rows = await catalogue.direct.rows<{ name: string }>('SELECT name FROM products ORDER BY id LIMIT 5');
    expect(rows).toHaveLength(5);
    firstNames = rows.map((row) => row.name);
    server = await buildServer(loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test', PORT: '0' }), catalogue.db.url);
    baseUrl = await server.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launching;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
    await catalogue?.dispose();
  });

  it('serves a page that references only local, whitelisted, cacheable assets and no inline script', async () => {
    const response = await fetch(`${baseUrl}/docs`, { redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();

    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline scripts
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const urls = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"[^>]*>/g)].map((m) => m[1]!);
    expect(urls.filter((url) => url.endsWith('.js')).length).toBeGreaterThanOrEqual(2); // the bundle and our init script
    expect(urls.some((url) => url.endsWith('.css'))).toBe(true);
    for (const url of urls) expect(url).toMatch(/^\/docs\/assets\/[\w.@-]+$/);

    for (const url of urls) {
      const asset = await fetch(baseUrl + url);
      expect(asset.status, url).toBe(200);
      const type = url.endsWith('.css') ? /^text\/css/ : url.endsWith('.png') ? /^image\/png/ : /^(text|application)\/javascript/;
      expect(asset.headers.get('content-type'), url).toMatch(type);
      expect(asset.headers.get('cache-control'), url).toMatch(/max-age=31536000/);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
      const etag = asset.headers.get('etag');
      expect(etag, url).toBeTruthy();
      expect((await fetch(baseUrl + url, { headers: { 'if-none-match': etag! } })).status, url).toBe(304);
    }
    const bundle = urls.find((url) => /swagger-ui-bundle[^/]*\.js$/.test(url));
    expect(bundle).toBeDefined();
    expect((await fetch(baseUrl + bundle!, { headers: { 'accept-encoding': 'gzip' } })).headers.get('content-encoding')).toBe('gzip');
    // Our init script points Swagger UI at this server's document, with the online validator off.
    const init = await (await fetch(baseUrl + urls.find((url) => /docs-init-[\w]+\.js$/.test(url))!)).text();
    expect(init).toContain('"/openapi.json"');
    expect(init).toMatch(/validatorUrl:\s*null/);

    const slash = await fetch(`${baseUrl}/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/docs');
  });

  it('answers 404 for anything under /docs/assets/ that is not whitelisted, traversal included', async () => {
    for (const rawPath of [
      '/docs/assets/../../package.json',
      '/docs/assets/..%2F..%2Fpackage.json',
      '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/docs/assets/..%2f..%2fnode_modules%2fswagger-ui-dist%2fswagger-ui.js',
      '/docs/assets/package.json',
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/index.html',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/',
      '/docs/assets/constructor',
      '/docs/assets/__proto__',
      '/docs/assets/x/../../../package.json',
      '/docs/index.html',
    ]) {
      const response = await rawGet(baseUrl, rawPath);
      expect(response.status, rawPath).toBe(404);
      expect(response.body, rawPath).not.toContain('"dependencies"');
      expect(response.body, rawPath).not.toContain('SwaggerUIBundle');
    }
  });

  it('works in Chromium with no external requests: operations listed, GET /products tried out with data from the database', async () => {
    const { context, page, external, problems } = await openOfflinePage(browser!);
    try {
      const response = await page.goto(`${baseUrl}/docs`);
      expect(response?.status()).toBe(200);

      // Every operation of the document is listed.
      const summaries = page.locator('.opblock .opblock-summary');
      await expect.poll(() => summaries.count(), { timeout: 15_000 }).toBe(7);
      const listed = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const route = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? block.querySelector('.opblock-summary-path')?.textContent ?? '';
        return `${method} ${route.replace(/\u200b/g, '')}`;
      }));
      expect([...listed].sort()).toEqual([
        'DELETE /products/{product_id}', 'GET /products', 'GET /products/{product_id}', 'GET /products/{product_id}/related',
        'GET /products/{product_id}/styles', 'POST /products', 'PUT /products/{product_id}',
      ]);
      await expect.poll(() => page.locator('.info .title').innerText()).toContain('Catalogue API');

      // Expand GET /products, try it out with the defaults, execute.
      const operation = page.locator('#operations-products-listProducts');
      await operation.locator('.opblock-summary').first().click();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('button.execute').click();

      const live = operation.locator('.live-responses-table');
      await expect.poll(() => live.locator('.response .response-col_status').first().innerText(), { timeout: 15_000 }).toBe('200');
      const bodyText = await live.locator('.response-col_description pre').first().innerText();
      const body = JSON.parse(bodyText) as { id: number; name: string }[];
      expect(body.map((product) => product.name)).toEqual(firstNames);
      // The request it made went to this server, with the documented defaults.
      const requestUrl = await operation.locator('.request-url pre').innerText();
      expect(new URL(requestUrl).origin).toBe(baseUrl);
      expect(new URL(requestUrl).pathname).toBe('/products');
      expect(Object.fromEntries(new URL(requestUrl).searchParams)).toEqual({ page: '1', count: '5' });
    } finally {
      await context.close();
    }
    expect(external).toEqual([]);
    expect(problems).toEqual([]);
  });
});
