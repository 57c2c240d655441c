// Serves a browser page (the GraphiQL IDE, Swagger UI) from this server alone:
// its scripts and styles come from node_modules or from strings of ours, under
// a prefix, never from a CDN. Only whitelisted assets are served: any other
// name under the prefix is a 404, so no request path reaches the file system.
// Public names carry the package version (or a content hash), so assets are
// cached for a year; each is read and gzipped once, on first request.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';
export const PNG = 'image/png';

export interface PageAsset {
  /** Public file name under the page's asset prefix. */
  name: string;
  contentType: string;
  /** How the page refers to it, in list order. */
  role: 'script' | 'style' | 'icon';
  load: () => Promise<Buffer>;
}

interface LoadedAsset {
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
}

const require = createRequire(import.meta.url);

/** A file from an installed package, named after the package version. */
export function packageAsset(pkg: string, file: string, name: (version: string) => string, contentType: string, role: PageAsset['role']): PageAsset {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { version } = require(manifest) as { version: string };
  return { name: name(version), contentType, role, load: () => fs.readFile(path.join(path.dirname(manifest), file)) };
}

/** A script of ours, served as a file (so the page's CSP can forbid inline scripts), named by its hash. */
export function ownScript(prefix: string, source: string): PageAsset {
  const body = Buffer.from(source);
  const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${prefix}-${hash}.js`, contentType: JS, role: 'script', load: async () => body };
}

/**
 * Scripts only from this origin (no inline script, no eval). GraphiQL and
 * Swagger UI set style attributes, so inline styles are allowed; their fonts
 * and icons are data: URLs inside the stylesheets. Requests only to this origin.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
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

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The `<link>` and `<script>` tags for the assets, in order. */
export function assetTags(prefix: string, assets: PageAsset[]): string {
  return assets.map((asset) => {
    const url = escapeHtml(prefix + encodeURIComponent(asset.name));
    if (asset.role === 'style') return `  <link rel="stylesheet" href="${url}">`;
    if (asset.role === 'icon') return `  <link rel="icon" type="${asset.contentType}" href="${url}">`;
    return `  <script defer src="${url}"></script>`;
  }).join('\n');
}

/** Sends a page with the security headers every such page gets. */
export function sendPage(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', PAGE_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .send(html);
}

const gzip = promisify(zlib.gzip);

async function loadAsset(asset: PageAsset): Promise<LoadedAsset> {
  const body = await asset.load();
  const compressed = asset.contentType !== PNG && body.length > 1024 ? await gzip(body, { level: 9 }) : undefined;
  const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, gzip: compressed && compressed.length < body.length ? compressed : undefined, etag };
}

/** GET <prefix>:name for the whitelisted assets, with ETags, gzip and year-long caching. */
export function registerAssets(app: FastifyInstance, prefix: string, assets: PageAsset[]): void {
  const byName = new Map(assets.map((asset) => [asset.name, asset]));
  const loaded = new Map<string, Promise<LoadedAsset>>();
  app.get<{ Params: { name: string } }>(`${prefix}:name`, async (request, reply) => {
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

/**
 * The HTML of a page of the API's own (the IDE, the REST documentation): the
 * same head everywhere (UTF-8, viewport, no referrer), then `head` (the
 * page's asset tags and styles) and `body`. A page without an icon of its own
 * declares an empty one, so browsers do not ask for /favicon.ico (a 404 in
 * the console); the CSP's img-src allows data:.
 */
export function pageShell(title: string, head: string, body: string): string {
  const icon = /<link rel="icon"/.test(head) ? '' : '\n  <link rel="icon" href="data:,">';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${title}</title>${icon}
${head}
</head>
<body>
  ${body}
</body>
</html>
`;
}
