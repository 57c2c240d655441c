// Swagger UI for the REST routes at GET /docs, reading GET /openapi.json.
// Everything comes from this server: Swagger UI's files from node_modules
// (swagger-ui-dist) under /docs/assets/, plus a start script of our own (a
// file, not an inline script, so the page's CSP forbids inline scripts). Only
// the whitelisted files below are served; any other name under /docs/assets/
// is a 404, so no path ever reaches the file system from a request.
//
// Public names carry the package version (or a content hash for our own
// script), so assets are cached for a year.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/docs';
export const DOCS_ASSET_PREFIX = '/docs/assets/';
export const OPENAPI_PATH = '/openapi.json';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const PNG = 'image/png';

// Starts Swagger UI on the document of this server. validatorUrl: null turns
// off the badge that would send the document to validator.swagger.io. The
// plain layout has no top bar (whose box would load documents from elsewhere).
const INIT_SCRIPT = `'use strict';
(function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 1,
    displayRequestDuration: true,
    tryItOutEnabled: false,
  });
})();
`;

interface AssetSource {
  /** Public file name under DOCS_ASSET_PREFIX. */
  name: string;
  contentType: string;
  /** `script` or `style` tags on the page, in this order; `icon` for the favicon. */
  role: 'script' | 'style' | 'icon';
  load: () => Promise<Buffer>;
}

interface LoadedAsset {
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
}

const require = createRequire(import.meta.url);

function swaggerUiDist(): { version: string; file: (name: string) => () => Promise<Buffer> } {
  const manifest = require.resolve('swagger-ui-dist/package.json');
  const { version } = require(manifest) as { version: string };
  const dir = path.dirname(manifest);
  return { version, file: (name) => () => fs.readFile(path.join(dir, name)) };
}

let sources: AssetSource[] | undefined;

function assetSources(): AssetSource[] {
  if (sources) return sources;
  const { version, file } = swaggerUiDist();
  const init = Buffer.from(INIT_SCRIPT);
  const initHash = crypto.createHash('sha256').update(init).digest('hex').slice(0, 12);
  sources = [
    { name: `swagger-ui-${version}.css`, contentType: CSS, role: 'style', load: file('swagger-ui.css') },
    { name: `swagger-ui-bundle-${version}.js`, contentType: JS, role: 'script', load: file('swagger-ui-bundle.js') },
    { name: `docs-init-${initHash}.js`, contentType: JS, role: 'script', load: async () => init },
    { name: `favicon-32x32-${version}.png`, contentType: PNG, role: 'icon', load: file('favicon-32x32.png') },
  ];
  return sources;
}

const gzip = promisify(zlib.gzip);

async function loadAsset(source: AssetSource): Promise<LoadedAsset> {
  const body = await source.load();
  const compressed = source.contentType !== PNG && body.length > 1024 ? await gzip(body, { level: 9 }) : undefined;
  const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, gzip: compressed && compressed.length < body.length ? compressed : undefined, etag };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function renderPage(assets: AssetSource[]): string {
  const url = (source: AssetSource) => escapeHtml(DOCS_ASSET_PREFIX + encodeURIComponent(source.name));
  const tags = assets.map((a) => {
    if (a.role === 'style') return `  <link rel="stylesheet" href="${url(a)}">`;
    if (a.role === 'icon') return `  <link rel="icon" type="image/png" href="${url(a)}">`;
    return `  <script defer src="${url(a)}"></script>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Catalogue API · REST documentation</title>
${tags.join('\n')}
</head>
<body>
  <div id="swagger-ui"><noscript>The documentation browser needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript></div>
</body>
</html>
`;
}

/**
 * Scripts only from this origin (no inline script, no eval). Swagger UI sets
 * style attributes and its icons are data: URLs in the stylesheet. "Try it
 * out" requests go to this origin only.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /docs (the page) and its whitelisted assets under /docs/assets/. */
export function registerDocs(app: FastifyInstance): void {
  const assets = assetSources();
  const byName = new Map(assets.map((source) => [source.name, source]));
  const html = renderPage(assets);
  // Each file is read (and compressed) once, on first request.
  const loaded = new Map<string, Promise<LoadedAsset>>();

  app.get(DOCS_PATH, async (_request, reply) => reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .send(html));

  app.get(`${DOCS_PATH}/`, async (_request, reply) => reply.redirect(DOCS_PATH, 301));

  app.get<{ Params: { name: string } }>(`${DOCS_ASSET_PREFIX}:name`, async (request, reply) => {
    const source = byName.get(request.params.name);
    if (!source) return reply.callNotFound();
    let pending = loaded.get(source.name);
    if (!pending) {
      pending = loadAsset(source);
      loaded.set(source.name, pending);
      pending.catch(() => loaded.delete(source.name));
    }
    const asset = await pending;
    reply
      .type(source.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', asset.etag)
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'same-origin');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (asset.gzip && acceptsGzip) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  });
}
