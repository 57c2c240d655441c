// The legacy REST routes (../shared/legacy-api.md), on the same loaders,
// pagination and write service as GraphQL: this file validates parameters,
// asks the catalogue, and reshapes. It has no SQL of its own.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LISTING_TAG, productTag, type ResponseCache } from '../cache/response-cache.ts';
import type { CatalogLoaders } from '../catalog/loaders.ts';
import type { ProductPages } from '../catalog/pages.ts';
import { IdempotencyKeyReused, parseIdempotencyKey } from '../catalog/idempotency.ts';
import { type CatalogService, type ProductCreate, VersionMismatch, type WrittenProduct } from '../catalog/service.ts';
import { NotFoundError, ValidationError, validateProductWrite } from '../catalog/validation.ts';
import { CONTENTION_RETRY_AFTER_SECONDS, WriteContention } from '../db/writes/transaction.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../db/failures/unavailable.ts';
import { CLIENT_GONE_MESSAGE, clientGone } from '../http/client-gone.ts';
import { parseIfMatch, productETag } from './entity-tags.ts';
import { bodyETag, type HttpCaching, notModified } from '../http/http-caching.ts';
import type { RestRead } from './graphql-equivalents.ts';
import { BadRequest, positiveInt } from './params.ts';
import { type LegacyOptions, listItem, productDetail, productStyles } from './shapes.ts';
import { LegacyAcceptedNotApplied, LegacyRejected, LegacySourceUnavailable } from '../catalog/source.ts';

export interface RestDependencies {
  /** A fresh set of per-request loaders (the server's: they report batch sizes to the metrics). */
  createLoaders(): CatalogLoaders;
  pages: ProductPages;
  service: CatalogService;
  legacy: LegacyOptions;
  maxPageSize: number;
  /** The response cache for the read routes; undefined when it is off. */
  cache: ResponseCache | undefined;
  /** Runs a handler inside the request's SQL statement count. */
  counted<T>(request: FastifyRequest, fn: () => Promise<T>): Promise<T>;
  /** API keys and rate limits (src/auth/rest-guard.ts): answers 401/429 itself. */
  guard(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** PUT and DELETE without If-Match are refused (428) rather than applied unconditionally. */
  requireIfMatch: boolean;
  /** Browser and CDN caching of the read answers. */
  httpCaching: HttpCaching;
  /** For each read, the longest the schema lets what it shows be reused (graphql-equivalents.ts). */
  hintSeconds: Record<RestRead, number>;
}

/** REST field names for the write fields (the rest are the same in both). */
const REST_NAMES = { defaultPrice: 'default_price' } as const;

class ProductNotFound extends NotFoundError {
  readonly id: number;
  constructor(id: number) {
    super(`product ${id} not found`);
    this.id = id;
  }
}

function notFound(id: number): NotFoundError {
  return new ProductNotFound(id);
}

class PreconditionRequired extends Error {
  constructor() {
    super('If-Match is required: send the ETag of the product as you last read it (GET /products/:product_id), or "*"');
  }
}

export async function registerRestRoutes(app: FastifyInstance, deps: RestDependencies): Promise<void> {
  const { createLoaders, pages, service, legacy, maxPageSize, counted, cache } = deps;

  /**
   * A read route's answer, from the response cache when it is on. `produce`
   * returns the body and the tags of the products it shows; an unknown
   * product's 404 is cached too, tagged with that product. Every 200 has a
   * strong ETag (the product's version for the detail, else a hash of the
   * body, stored with it): If-None-Match naming it is a 304.
   */
  async function cachedRead(request: FastifyRequest, reply: FastifyReply, read: RestRead, produce: () => Promise<{ body: unknown; tags: string[]; etag?: string }>) {
    const run = async () => {
      try {
        const { body, tags, etag } = await produce();
        const text = JSON.stringify(body);
        return { status: 200, body: text, tags, etag: etag ?? bodyETag(text) };
      } catch (error) {
        if (error instanceof ProductNotFound) return { status: 404, body: JSON.stringify({ error: error.message }), tags: [productTag(error.id)] };
        throw error;
      }
    };
    const response = cache ? await cache.fetch(`rest:${request.url}`, run) : { ...(await run()), hit: undefined };
    if (response.hit !== undefined) reply.header('x-cache', response.hit ? 'hit' : 'miss');
    deps.httpCaching.readHeaders(reply, { tags: response.tags, hintSeconds: deps.hintSeconds[read] });
    if (response.status === 200 && response.etag && notModified(reply, request.headers['if-none-match'], response.etag)) return reply.send();
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  }

  /** A product's legacy detail, with its ETag; the product as a write left it, without reading it again. */
  function detailOf({ product, features }: WrittenProduct) {
    return { body: productDetail(product, features, legacy), etag: productETag(product.version) };
  }

  async function detail(id: number) {
    const loaders = createLoaders();
    const [product, features] = await Promise.all([loaders.product.load(id), loaders.features.load(id)]);
    if (!product) throw notFound(id);
    return detailOf({ product, features });
  }

  /** The If-Match of a PUT or DELETE: the versions it may change, or 428 when required and missing. */
  function expectedVersion(request: FastifyRequest) {
    const expected = parseIfMatch(request.headers['if-match']);
    if (expected === undefined && deps.requireIfMatch) throw new PreconditionRequired();
    return expected;
  }

  await app.register(async (scope) => {
    scope.addHook('onRequest', deps.guard);
    // Every failure answers {"error": "..."}: 400 for bad input, 404 for unknown
    // products, 422 for a reused idempotency key, 503 with Retry-After while
    // Postgres is unavailable, 500 (masked, logged) for anything else. Never a
    // database message.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      // No error answer is kept by a browser or CDN (cacheable 404s are answered by cachedRead).
      reply.header('cache-control', 'no-store');
      if (clientGone(request)) {
        request.log.info({ reason: error.message }, CLIENT_GONE_MESSAGE);
        return reply.code(400).send({ error: CLIENT_GONE_MESSAGE });
      }
      if (error instanceof BadRequest || error instanceof ValidationError) return reply.code(400).send({ error: error.message });
      // Sidecar mode: the legacy service's own answer, as it sent it (a refusal, or a write accepted there and not yet read back).
      if (error instanceof LegacyRejected || error instanceof LegacyAcceptedNotApplied) {
        if (error instanceof LegacyAcceptedNotApplied) request.log.warn({ err: error.cause, productId: error.productId }, error.message);
        return reply.code(error.status).type(error.contentType).send(error.body);
      }
      if (error instanceof LegacySourceUnavailable) {
        return reply.code(503).header('retry-after', String(error.retryAfterSeconds)).send({ error: error.message });
      }
      if (error instanceof NotFoundError) return reply.code(404).send({ error: error.message });
      if (error instanceof IdempotencyKeyReused) return reply.code(422).send({ error: error.message });
      if (error instanceof VersionMismatch) return reply.code(412).header('etag', productETag(error.currentVersion)).send({ error: error.message });
      if (error instanceof PreconditionRequired) return reply.code(428).send({ error: error.message });
      if (error instanceof WriteContention) {
        return reply.code(503).header('retry-after', String(CONTENTION_RETRY_AFTER_SECONDS)).send({ error: error.message });
      }
      if (isDatabaseUnavailable(error)) {
        request.log.warn({ requestId: request.id, reason: error.message }, 'database unavailable in a REST route');
        return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ error: DATABASE_UNAVAILABLE_MESSAGE });
      }
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
    // Every unknown route or method (`PUT /products`, `/products/1/nope`, any
    // path: Fastify has one not-found handler per prefix) is a 404 in the legacy
    // shape, and a body it cannot parse meets the error handler above.
    scope.setNotFoundHandler((request, reply) => reply.code(404).send({ error: `no route ${request.method} ${JSON.stringify(request.url.split('?')[0])}` }));

    const query = (request: FastifyRequest) => request.query as Record<string, unknown>;
    const productId = (request: FastifyRequest) => positiveInt((request.params as { product_id: string }).product_id, 'product_id');

    scope.get('/products', (request, reply) => counted(request, async () => {
      const page = positiveInt(query(request).page, 'page', { fallback: 1 });
      const count = positiveInt(query(request).count, 'count', { fallback: Math.min(5, maxPageSize), max: maxPageSize });
      return cachedRead(request, reply, 'list', async () => {
        const products = await pages.page(page, count);
        return { body: products.map((p) => listItem(p, legacy)), tags: [LISTING_TAG, ...products.map((p) => productTag(p.id))] };
      });
    }));

    scope.get('/products/:product_id', (request, reply) => counted(request, async () => {
      const id = productId(request);
      return cachedRead(request, reply, 'detail', async () => ({ ...(await detail(id)), tags: [productTag(id)] }));
    }));

    scope.get('/products/:product_id/styles', (request, reply) => counted(request, async () => {
      const id = productId(request);
      return cachedRead(request, reply, 'styles', async () => {
        const product = await createLoaders().productWithStyles.load(id);
        if (!product) throw notFound(id);
        return { body: productStyles(id, product.styles ?? [], legacy), tags: [productTag(id)] };
      });
    }));

    scope.get('/products/:product_id/related', (request, reply) => counted(request, async () => {
      const id = productId(request);
      return cachedRead(request, reply, 'related', async () => {
        const loaders = createLoaders();
        const [product, related] = await Promise.all([loaders.product.load(id), loaders.related.load(id)]);
        if (!product) throw notFound(id);
        // Foreign keys guarantee every related id exists; 0 never loads.
        return { body: related.map((row) => row.relatedProductId), tags: [productTag(id)] };
      });
    }));

    scope.post('/products', (request, reply: FastifyReply) => counted(request, async () => {
      const write = validateProductWrite(request.body, 'create', REST_NAMES);
      const idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key'], 'Idempotency-Key');
      // Sidecar mode sends the client's body on to the legacy service.
      const created = await service.createProduct(write as ProductCreate, { idempotencyKey, sourceBody: JSON.stringify(request.body) });
      // A repeat of an earlier create answers as that one did, and says so.
      if (created.replayed) reply.header('idempotent-replayed', 'true');
      const { body, etag } = detailOf(created);
      reply.code(201).header('etag', etag);
      return body;
    }));

    scope.put('/products/:product_id', (request, reply: FastifyReply) => counted(request, async () => {
      const id = productId(request);
      const expected = expectedVersion(request);
      const write = validateProductWrite(request.body, 'update', REST_NAMES);
      const { body, etag } = detailOf(await service.updateProduct(id, write, { expected, sourceBody: JSON.stringify(request.body) }));
      reply.header('etag', etag);
      return body;
    }));

    scope.delete('/products/:product_id', (request, reply: FastifyReply) => counted(request, async () => {
      const id = productId(request);
      await service.deleteProduct(id, { expected: expectedVersion(request) });
      reply.code(204);
      return null;
    }));
  });
}
