// The OpenAPI document without a server: for tests and tools.
import Fastify from 'fastify';
import type { OpenApiDocument } from './openapi-document.ts';
import { registerRestRoutes } from './routes.ts';
import type { OpenApiOptions } from './schemas.ts';

/**
 * The document a server with these options serves, without a server: the
 * REST routes registered on a bare Fastify instance (never called), then
 * @fastify/swagger's document. For tests and tools.
 */
export async function buildOpenApiDocument(options: OpenApiOptions): Promise<OpenApiDocument> {
  const app = Fastify();
  const unused = () => { throw new Error('buildOpenApiDocument: the routes are not for calling'); };
  try {
    await registerRestRoutes(app, {
      createLoaders: unused, pages: undefined as never, service: undefined as never,
      legacy: { campus: options.campus, emptyPlaceholders: options.emptyPlaceholders },
      maxPageSize: options.maxPageSize, cache: undefined, counted: unused, guard: (_request, _reply, done) => done(),
      requireIfMatch: false, readsNeedKey: options.readsNeedKey ?? false,
      httpCaching: undefined as never, hintSeconds: undefined as never, cheapReads: undefined as never,
    });
    await app.ready();
    return structuredClone(app.swagger()) as unknown as OpenApiDocument;
  } finally {
    await app.close();
  }
}
