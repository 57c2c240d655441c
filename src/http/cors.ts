// Cross-origin browsers (docs/caching.md "CORS"), through @fastify/cors. The API
// authenticates by header (Authorization or X-API-Key), never by cookie, so
// a page on another origin can only act with a key it was given: `*` is the
// default, credentials (cookies, TLS client certificates) only for a listed
// origin (config.ts refuses them with `*`).
import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { CorsConfig } from '../config.ts';
import { READ_METHODS, WRITE_METHODS } from './methods.ts';

/**
 * Response headers a script on another origin may read: the request id to
 * quote, conditional requests, rate limits, the cache and statement counters,
 * an idempotent replay.
 */
export const EXPOSED_HEADERS = [
  'x-request-id', 'etag', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after',
  'x-cache', 'x-sql-statements', 'idempotent-replayed',
] as const;

export async function registerCors(app: FastifyInstance, config: CorsConfig): Promise<void> {
  if (config.origins === false) return;
  const listed = Array.isArray(config.origins) ? new Set(config.origins) : undefined;
  await app.register(fastifyCors, {
    // A list: an unlisted origin (or none) gets no CORS header at all, not even credentials or exposed headers.
    origin: listed ? (origin, callback) => callback(null, origin !== undefined && listed.has(origin)) : config.origins,
    credentials: config.credentials,
    methods: [...READ_METHODS, ...WRITE_METHODS],
    // Any request header a preflight asks for (allowedHeaders unset: reflected):
    // no header grants anything by itself being present.
    // Joined once here: given a list, the plugin joins it on every response.
    exposedHeaders: EXPOSED_HEADERS.join(', '),
    maxAge: config.maxAgeSeconds,
    // A plain OPTIONS (no Origin) is answered like a preflight, not with a 400.
    strictPreflight: false,
  });
  // The plugin leaves a preflight from an unlisted origin (or a plain OPTIONS
  // without one) to the router, whose only OPTIONS route then answers 404 "no
  // route". Every preflight is a 204 (docs/caching.md "CORS"); this one without
  // any Access-Control-* header, which is what refuses it in the browser.
  // (Runs after the plugin's hook, which ends every OPTIONS it answers.)
  if (listed) {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS') return reply.code(204).header('content-length', '0').send();
    });
  }
}
