// The OpenAPI 3.1 document of the legacy REST routes, served at GET
// /openapi.json: @fastify/swagger (dynamic mode) builds it from the routes'
// own schemas (./schemas.ts), the ones Fastify validates requests with and
// serializes responses with, so the document is the server. Added here: the
// document's info, the shared schemas as components, and the API keys and
// rate limits (./openapi-access.ts). The document's types are in
// ./openapi-document.ts; the document without a server, for tests and tools,
// in ./openapi-offline.ts (which registers the routes, so it sits above them).
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { withAccessControl } from './openapi-access.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import { MESSAGE, type OpenApiOptions } from './schemas.ts';

export type { JsonSchema, OpenApiOptions } from './schemas.ts';
export { HTTP_METHODS, type HttpMethod, type OpenApiDocument, type OperationObject, type PathItem } from './openapi-document.ts';

export const OPENAPI_PATH = '/openapi.json';

function info(maxPageSize: number) {
  return {
    title: 'Catalogue API: legacy Products REST routes',
    version: '1.0.0',
    description: [
      'The legacy Products API, drop-in compatible with the Atelier front end. Every error is `{"error": "<message>"}`:',
      '400 for a malformed id, `page` or `count` (not a positive integer, or `count` above ' + String(maxPageSize) + ') or an invalid body or header (the message names it),',
      '404 for an unknown product, 413/415 for an oversized or non-JSON body, 422 for a reused `Idempotency-Key`,',
      '412 when an `If-Match` no longer matches the product (428 without one, if the server requires it),',
      '503 with `Retry-After` while the database is unavailable or a write could not get its turn on a busy product, 500 (masked) for anything else.',
      'A method a path does not have is a 405 with `Allow` listing the ones it has; an unknown path is a 404.',
      'Products carry a strong `ETag` (their version, new at every write): send it back in `If-Match` on PUT and DELETE',
      'to change the product only if nobody else has since (no lost updates), or in `If-None-Match` on GET for a 304.',
      'The same catalogue is served over GraphQL at `/graphql`.',
    ].join(' '),
  };
}

/** The document without the x-message annotations (error wording for ./validation.ts, not for clients). */
function withoutMessages(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMessages);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== MESSAGE).map(([key, inner]) => [key, withoutMessages(inner)]));
}

/**
 * Registers @fastify/swagger on `app` (before the routes it describes: it
 * collects them as they are added; only tagged routes are published) and
 * GET /openapi.json, which serves the document it builds (once).
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: info(options.maxPageSize),
      servers: [{ url: '/', description: 'This server' }],
      tags: [{ name: 'products', description: 'Products, their styles and related products' }],
    },
    hideUntagged: true,
    // OpenAPI 3.1 has `const` (JSON Schema 2020-12).
    convertConstToEnum: false,
    // Shared schemas keep their names: #/components/schemas/Product.
    refResolver: { buildLocalReference: (json: { $id?: unknown }, _base: unknown, _fragment: unknown, i: number) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: ({ openapiObject }: { openapiObject: unknown }) => withAccessControl(withoutMessages(openapiObject) as OpenApiDocument, options.readsNeedKey ?? false) as never,
  } as Parameters<typeof fastifySwagger>[1]);

  let body: string | undefined;
  app.get(OPENAPI_PATH, async (_request, reply) => {
    body ??= JSON.stringify(app.swagger());
    return reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  });
}
