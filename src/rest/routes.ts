// The legacy REST routes (../shared/legacy-api.md), on the same loaders,
// pagination and write service as GraphQL: this file validates parameters,
// asks the catalogue, and reshapes. It has no SQL of its own.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createLoaders } from '../catalog/loaders.ts';
import type { ProductPages } from '../catalog/pages.ts';
import type { CatalogQueries } from '../catalog/queries.ts';
import type { CatalogService } from '../catalog/service.ts';
import { NotFoundError, ValidationError, validateProductWrite } from '../catalog/validation.ts';
import { BadRequest, positiveInt } from './params.ts';
import { type LegacyOptions, listItem, productDetail, productStyles } from './shapes.ts';

export interface RestDependencies {
  queries: CatalogQueries;
  pages: ProductPages;
  service: CatalogService;
  legacy: LegacyOptions;
  maxPageSize: number;
  /** Runs a handler inside the request's SQL statement count. */
  counted<T>(request: FastifyRequest, fn: () => Promise<T>): Promise<T>;
}

/** REST field names for the write fields (the rest are the same in both). */
const REST_NAMES = { defaultPrice: 'default_price' } as const;

function notFound(id: number): NotFoundError {
  return new NotFoundError(`product ${id} not found`);
}

export async function registerRestRoutes(app: FastifyInstance, deps: RestDependencies): Promise<void> {
  const { queries, pages, service, legacy, maxPageSize, counted } = deps;

  async function detail(id: number) {
    const loaders = createLoaders(queries);
    const [product, features] = await Promise.all([loaders.product.load(id), loaders.features.load(id)]);
    if (!product) throw notFound(id);
    return productDetail(product, features, legacy);
  }

  await app.register(async (scope) => {
    // Every failure answers {"error": "..."}: 400 for bad input, 404 for unknown
    // products, 500 (masked, logged) for anything else. Never a database message.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof BadRequest || error instanceof ValidationError) return reply.code(400).send({ error: error.message });
      if (error instanceof NotFoundError) return reply.code(404).send({ error: error.message });
      if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        return reply.code(400).send({ error: 'request body is not valid JSON' });
      }
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.code(415).send({ error: 'request body must be application/json' });
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: 'request body is too large' });
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return reply.code(error.statusCode).send({ error: error.message });
      }
      request.log.error({ err: error, requestId: request.id }, 'internal error in a REST route');
      return reply.code(500).send({ error: 'internal server error' });
    });

    const query = (request: FastifyRequest) => request.query as Record<string, unknown>;
    const productId = (request: FastifyRequest) => positiveInt((request.params as { product_id: string }).product_id, 'product_id');

    scope.get('/products', (request) => counted(request, async () => {
      const page = positiveInt(query(request).page, 'page', { fallback: 1 });
      const count = positiveInt(query(request).count, 'count', { fallback: Math.min(5, maxPageSize), max: maxPageSize });
      const products = await pages.page(page, count);
      return products.map((p) => listItem(p, legacy));
    }));

    scope.get('/products/:product_id', (request) => counted(request, () => detail(productId(request))));

    scope.get('/products/:product_id/styles', (request) => counted(request, async () => {
      const id = productId(request);
      const product = await createLoaders(queries).productWithStyles.load(id);
      if (!product) throw notFound(id);
      return productStyles(id, product.styles ?? [], legacy);
    }));

    scope.get('/products/:product_id/related', (request) => counted(request, async () => {
      const id = productId(request);
      const loaders = createLoaders(queries);
      const [product, related] = await Promise.all([loaders.product.load(id), loaders.related.load(id)]);
      if (!product) throw notFound(id);
      // Foreign keys guarantee every related id exists; 0 never loads.
      return related.map((row) => row.relatedProductId);
    }));

    scope.post('/products', (request, reply: FastifyReply) => counted(request, async () => {
      const write = validateProductWrite(request.body, 'create', REST_NAMES);
      const created = await service.createProduct(write as Parameters<CatalogService['createProduct']>[0]);
      reply.code(201);
      return detail(created.id);
    }));

    scope.put('/products/:product_id', (request) => counted(request, async () => {
      const id = productId(request);
      await service.updateProduct(id, validateProductWrite(request.body, 'update', REST_NAMES));
      return detail(id);
    }));

    scope.delete('/products/:product_id', (request, reply: FastifyReply) => counted(request, async () => {
      await service.deleteProduct(productId(request));
      reply.code(204);
      return null;
    }));
  });
}
