// Swagger UI for the REST routes at GET /docs, reading GET /openapi.json.
// Everything comes from this server: Swagger UI's files from node_modules
// (swagger-ui-dist) under /docs/assets/, plus a start script of our own (a
// file, not an inline script, so the page's CSP forbids inline scripts). Only
// the whitelisted files below are served; any other name under /docs/assets/
// is a 404, so no path ever reaches the file system from a request.
//
// Public names carry the package version (or a content hash for our own
// script), so assets are cached for a year.
import type { FastifyInstance } from 'fastify';
import { CSS, JS, PNG, type PageAsset, assetTags, ownScript, packageAsset, pageShell, registerAssets, sendPage } from '../http/browser-page.ts';

export const DOCS_PATH = '/docs';
export const DOCS_ASSET_PREFIX = '/docs/assets/';
export const OPENAPI_PATH = '/openapi.json';

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

let assets: PageAsset[] | undefined;

function docsAssets(): PageAsset[] {
  assets ??= [
    packageAsset('swagger-ui-dist', 'swagger-ui.css', (v) => `swagger-ui-${v}.css`, CSS, 'style'),
    packageAsset('swagger-ui-dist', 'swagger-ui-bundle.js', (v) => `swagger-ui-bundle-${v}.js`, JS, 'script'),
    ownScript('docs-init', INIT_SCRIPT),
    packageAsset('swagger-ui-dist', 'favicon-32x32.png', (v) => `favicon-32x32-${v}.png`, PNG, 'icon'),
  ];
  return assets;
}

function renderPage(pageAssets: PageAsset[]): string {
  return pageShell('Catalogue API · REST documentation', assetTags(DOCS_ASSET_PREFIX, pageAssets),
    `<div id="swagger-ui"><noscript>The documentation browser needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript></div>`);
}

/** GET /docs (the page) and its whitelisted assets under /docs/assets/. */
export function registerDocs(app: FastifyInstance): void {
  const html = renderPage(docsAssets());
  app.get(DOCS_PATH, async (_request, reply) => sendPage(reply, html));
  app.get(`${DOCS_PATH}/`, async (_request, reply) => reply.redirect(DOCS_PATH, 301));
  registerAssets(app, DOCS_ASSET_PREFIX, docsAssets());
}
