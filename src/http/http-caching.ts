// How browsers and CDNs may keep read answers (GraphQL GET, the REST reads),
// one rule for both APIs:
//
// - Every cacheable answer has a strong ETag, and a request naming it in
//   If-None-Match gets a 304 without a body (from the response cache: no SQL).
// - By default `Cache-Control: no-cache`: a browser may keep the answer but
//   asks again every time, so it never shows a client data older than a write
//   that client made; the ask is a 304 when nothing changed.
//   HTTP_CACHE_MAX_AGE_SECONDS / HTTP_CACHE_SHARED_MAX_AGE_SECONDS allow
//   reuse without asking (max-age, s-maxage), never beyond the schema's
//   @cacheControl hint for what the answer shows (stock levels change
//   outside the API).
// - Surrogate-Key (Fastly, Varnish xkey) and Cache-Tag (Cloudflare, Akamai)
//   name the products an answer shows, in the response cache's own tags, so
//   the purge hook (cdn-purge.ts) can drop exactly those after a write, and
//   CATALOGUE_TAG, which a load replacing the catalogue purges.
// - Vary names every request header the answer depends on.
import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { HttpCacheConfig } from '../config.ts';

/** The request headers that carry an API key (src/auth/credentials.ts reads them). */
const CREDENTIAL_HEADERS = ['Authorization', 'X-API-Key'];

/** A strong entity tag of a body: the same bytes, the same tag. */
export function bodyETag(body: string): string {
  return `"${crypto.hash('sha1', body, 'base64url')}"`;
}

/** The strong ETag of a representation: its media type is part of it (another Accept, another tag: RFC 9110 §8.8.3). */
export function representationETag(contentType: string, body: string): string {
  return bodyETag(`${contentType}\n${body}`);
}

/** True when an If-None-Match header names this ETag (weak comparison, RFC 9110 §13.1.2) or is '*'. */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return text.split(',').some((part) => part.trim().replace(/^W\//, '') === opaque);
}

/** Adds header names to Vary, keeping those already there (CORS adds Origin). */
export function addVary(reply: FastifyReply, names: readonly string[]): void {
  const current = reply.getHeader('vary');
  const present = typeof current === 'string' ? current.split(',').map((name) => name.trim()).filter(Boolean) : [];
  const lower = new Set(present.map((name) => name.toLowerCase()));
  if (lower.has('*')) return;
  const added = names.filter((name) => !lower.has(name.toLowerCase()));
  if (added.length > 0) reply.header('vary', [...present, ...added].join(', '));
}

export interface ReadAnswer {
  /** The tags of the products the answer shows (response-cache tags). */
  tags: readonly string[];
  /** The longest the schema lets what it shows be reused (its @cacheControl hints), in seconds. */
  hintSeconds: number;
  /** For one caller only (a PRIVATE hint): no shared cache, no surrogate keys. */
  private?: boolean;
}

/**
 * Most tags an answer names. Past it, an answer names ALL_TAG instead of its
 * products (headers stay about 1 KB: proxies buffer 4 KB of headers by
 * default, CDNs take 16 KB), and every purge names ALL_TAG too.
 */
export const MAX_SURROGATE_KEYS = 64;
/** Stands for "some product in this answer": purged by every write. */
export const ALL_TAG = 'all';
/** Named by every answer a CDN may keep (even one showing no product: a null): purged when a load replaces the catalogue. */
export const CATALOGUE_TAG = 'catalogue';

/** The Surrogate-Key and Cache-Tag headers naming these tags (ALL_TAG past MAX_SURROGATE_KEYS), and CATALOGUE_TAG. */
export function surrogateKeys(tags: readonly string[]): [string, string][] {
  const named = tags.length > MAX_SURROGATE_KEYS ? [...tags.filter((tag) => !tag.startsWith('p:')), ALL_TAG] : [...tags];
  named.push(CATALOGUE_TAG);
  return [['surrogate-key', named.join(' ')], ['cache-tag', named.join(',')]];
}

export class HttpCaching {
  private readonly config: HttpCacheConfig;
  /** Request headers every read answer depends on: the credentials, when reads need a key. */
  readonly vary: readonly string[];
  constructor(config: HttpCacheConfig, options: { readsNeedKey: boolean }) {
    this.config = config;
    this.vary = options.readsNeedKey ? CREDENTIAL_HEADERS : [];
  }

  /** Cache-Control of a cacheable read answer. */
  cacheControl(answer: Pick<ReadAnswer, 'hintSeconds' | 'private'>): string {
    const maxAge = Math.min(this.config.maxAgeSeconds, answer.hintSeconds);
    const shared = answer.private ? 0 : Math.min(this.config.sharedMaxAgeSeconds, answer.hintSeconds);
    if (maxAge === 0 && shared === 0) return answer.private ? 'private, no-cache' : 'no-cache';
    return `${answer.private ? 'private' : 'public'}, max-age=${maxAge}${shared > 0 ? `, s-maxage=${shared}` : ''}`;
  }

  /** Sets Cache-Control, Vary and the surrogate keys of a cacheable REST read answer. */
  readHeaders(reply: FastifyReply, answer: ReadAnswer): void {
    reply.header('cache-control', this.cacheControl(answer));
    addVary(reply, this.vary);
    if (!answer.private) for (const [name, value] of surrogateKeys(answer.tags)) reply.header(name, value);
  }
}

/**
 * Sets the ETag of a 200 read answer and, when the request already holds it
 * (If-None-Match on GET, RFC 9110 §13.1.2), makes it a 304 without a body.
 * Returns whether it did.
 */
export function notModified(reply: FastifyReply, ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  reply.header('etag', etag);
  if (!noneMatch(ifNoneMatch, etag)) return false;
  reply.code(304);
  return true;
}
