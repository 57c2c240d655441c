// The in-browser GraphQL IDE (GraphiQL 3), served entirely from this server:
// `GET /graphql` from a browser gets the page (see server.ts), and its scripts
// and styles come from node_modules under /graphql/assets/, never from a CDN.
//
// Only the files listed in ASSETS are served. Their public names carry the
// package version (or a content hash), so they can be cached for a year.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const IDE_ASSET_PREFIX = '/graphql/assets/';

/** What the editor shows on a first visit (GraphiQL keeps later edits in localStorage). */
export const EXAMPLE_QUERY = `# Welcome to the catalogue API. Press the run button (or Ctrl-Enter) to send
# this query; open the Docs (book icon, top left) to browse every type and field.
query ProductWithStyles {
  product(id: "1") {
    id
    name
    defaultPrice
    styles {
      name
      salePrice
      photos {
        thumbnailUrl
      }
      skus {
        size
        quantity
      }
    }
  }
}
`;

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

// Starts GraphiQL. A file of its own (not an inline script) so the page's CSP
// can forbid inline scripts. It POSTs to /graphql on the same origin and sends
// the headers typed in the IDE's headers editor along.
const BOOT_SCRIPT = `'use strict';
(function () {
  var DEFAULT_QUERY = ${JSON.stringify(EXAMPLE_QUERY)};
  async function fetcher(params, options) {
    var response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: Object.assign({}, options && options.headers, {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
      }),
      body: JSON.stringify(params),
    });
    var text = await response.text();
    try {
      return JSON.parse(text);
    } catch (error) {
      return { errors: [{ message: 'HTTP ' + response.status + ' ' + response.statusText + ': ' + text.slice(0, 1000) }] };
    }
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultEditorToolsVisibility: false,
    shouldPersistHeaders: false,
  }));
})();
`;

interface AssetSource {
  /** Public file name under IDE_ASSET_PREFIX. */
  name: string;
  contentType: string;
  load: () => Promise<Buffer>;
}

interface LoadedAsset {
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
}

const require = createRequire(import.meta.url);

function packageFile(pkg: string, file: string): { version: string; load: () => Promise<Buffer> } {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { version } = require(manifest) as { version: string };
  return { version, load: () => fs.readFile(path.join(path.dirname(manifest), file)) };
}

function fromPackage(pkg: string, file: string, name: (version: string) => string, contentType: string): AssetSource {
  const { version, load } = packageFile(pkg, file);
  return { name: name(version), contentType, load };
}

let sources: AssetSource[] | undefined;

function assetSources(): AssetSource[] {
  sources ??= listAssetSources();
  return sources;
}

function listAssetSources(): AssetSource[] {
  const boot = Buffer.from(BOOT_SCRIPT);
  const bootHash = crypto.createHash('sha256').update(boot).digest('hex').slice(0, 12);
  return [
    fromPackage('react', 'umd/react.production.min.js', (v) => `react-${v}.production.min.js`, JS),
    fromPackage('react-dom', 'umd/react-dom.production.min.js', (v) => `react-dom-${v}.production.min.js`, JS),
    fromPackage('graphiql', 'graphiql.min.js', (v) => `graphiql-${v}.min.js`, JS),
    fromPackage('graphiql', 'graphiql.min.css', (v) => `graphiql-${v}.min.css`, CSS),
    { name: `ide-${bootHash}.js`, contentType: JS, load: async () => boot },
  ];
}

const gzip = promisify(zlib.gzip);

async function loadAsset(source: AssetSource): Promise<LoadedAsset> {
  const body = await source.load();
  const compressed = body.length > 1024 ? await gzip(body, { level: 9 }) : undefined;
  const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, gzip: compressed && compressed.length < body.length ? compressed : undefined, etag };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function renderPage(assets: AssetSource[]): string {
  const url = (source: AssetSource) => escapeHtml(IDE_ASSET_PREFIX + encodeURIComponent(source.name));
  const styles = assets.filter((a) => a.contentType === CSS).map((a) => `  <link rel="stylesheet" href="${url(a)}">`);
  const scripts = assets.filter((a) => a.contentType === JS).map((a) => `  <script defer src="${url(a)}"></script>`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>GraphiQL · Catalogue API</title>
${styles.join('\n')}
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
${scripts.join('\n')}
</head>
<body>
  <div id="graphiql"><noscript>The GraphiQL IDE needs JavaScript. The API itself answers POST /graphql.</noscript></div>
</body>
</html>
`;
}

/**
 * Scripts only from this origin (no inline script, no eval). GraphiQL and
 * CodeMirror set style attributes, so inline styles are allowed; its fonts and
 * icons are data: URLs inside the stylesheet. Requests only to this origin.
 */
export const IDE_CONTENT_SECURITY_POLICY = [
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

let ideHtml: string | undefined;

/** Sends the IDE page. The GET /graphql route calls this for browsers. */
export function sendIde(reply: FastifyReply): FastifyReply {
  ideHtml ??= renderPage(assetSources());
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('vary', 'accept')
    .header('content-security-policy', IDE_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .send(ideHtml);
}

/** Serves the IDE's whitelisted assets under /graphql/assets/. */
export function registerIde(app: FastifyInstance): void {
  const byName = new Map(assetSources().map((source) => [source.name, source]));
  // Read (and compress) each file once, on first request.
  const loaded = new Map<string, Promise<LoadedAsset>>();

  app.get<{ Params: { name: string } }>(`${IDE_ASSET_PREFIX}:name`, async (request, reply) => {
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
