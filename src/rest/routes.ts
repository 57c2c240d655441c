// The legacy REST routes (../shared/legacy-api.md), on the same loaders,
// pagination and write service as GraphQL: this file validates parameters,
// asks the catalogue, and reshapes. It has no SQL of its own.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LISTING_TAG, productTag, type ResponseCache } from '../cache/response-cache.ts';
import { restCacheKey } from '../cache/cache-key.ts';
import type { CatalogLoaders } from '../catalog/reads/loaders.ts';
import type { ProductPages } from '../catalog/reads/listing-anchors.ts';
import { IdempotencyKeyReused, parseIdempotencyKey } from '../catalog/writes/idempotency.ts';
import { type ProductCreate, type ProductWrites, VersionMismatch, type WrittenProduct } from '../catalog/writes/service.ts';
import { NotFoundError, ValidationError, validateProductWrite } from '../catalog/model/validation.ts';
import { WriteContention } from '../db/writes/transaction.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../db/failures/unavailable.ts';
import { CLIENT_GONE_MESSAGE, clientGone } from '../http/client-gone.ts';
import { registerJsonParser } from '../http/json-input.ts';
import { parseIfMatch, parseIfNoneMatch, productETag } from './entity-tags.ts';
import { bodyETag, type HttpCaching, notModified } from '../http/http-caching.ts';
import type { RestRead } from './graphql-equivalents.ts';
import { BadRequest } from './params.ts';
import { registerOpenApi } from './openapi.ts';
import { componentSchemas, routeSchemas } from './schemas.ts';
import { type LegacyOptions, listItem, productDetail, productStylesJson } from './shapes.ts';
import { restValidatorCompiler } from './validation.ts';
import { LegacyAcceptedNotApplied, LegacyRejected, LegacySourceUnavailable } from '../catalog/writes/source.ts';

export interface RestDependencies {
  /** A fresh set of per-request loaders (the server's: they report batch sizes to the metrics). */
  createLoaders(): CatalogLoaders;
  pages: ProductPages;
  service: ProductWrites;
  legacy: LegacyOptions;
  maxPageSize: number;
  /** The response cache for the read routes; undefined when it is off. */
  cache: ResponseCache | undefined;
  /** Runs a handler inside the request's SQL statement count. */
  counted<T>(request: FastifyRequest, fn: () => Promise<T>): Promise<T>;
  /** API keys and rate limits (src/auth/rest-guard.ts): answers 401/429 itself. */
  guard(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void;
  /** PUT and DELETE without If-Match are refused (428) rather than applied unconditionally. */
  requireIfMatch: boolean;
  /** Browser and CDN caching of the read answers. */
  httpCaching: HttpCaching;
  /** For each read, the longest the schema lets what it shows be reused (graphql-equivalents.ts). */
  hintSeconds: Record<RestRead, number>;
  /** For each read, whether it is a cheap read (src/graphql/cost.ts, as its GraphQL equivalent is): the response cache's doorkeeper stores it from its key's second sighting and looks it up from its third. */
  cheapReads: Record<RestRead, boolean>;
  /** Reads need an API key too (the OpenAPI document says so). */
  readsNeedKey?: boolean;
}

/** Methods Fastify answers for a GET route too. */
const IMPLIED_METHODS: Record<string, string[]> = { GET: ['HEAD'] };

/**
 * The methods each REST path has, for 405s: path templates (`/products/:product_id`)
 * as regular expressions over concrete paths, in registration order.
 */
class AllowedMethods {
  private readonly paths: { url: string; pattern: RegExp; methods: Set<string> }[] = [];
  add(url: string, methods: string[]): void {
    const source = url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    let entry = this.paths.find((path) => path.url === url);
    if (!entry) this.paths.push(entry = { url, pattern: new RegExp(`^${source}$`), methods: new Set() });
    for (const method of methods) for (const m of [method, ...(IMPLIED_METHODS[method] ?? [])]) entry.methods.add(m);
  }
  /** The methods of the first template matching `path`; undefined for a path no route has. */
  of(path: string): string[] | undefined {
    const entry = this.paths.find(({ pattern }) => pattern.test(path));
    return entry && [...entry.methods];
  }
}

/**
 * A body whose default_price is a number, with the price rounded to the cent
 * (as a string with two decimals, which is what validation then reads); the
 * route schema has already checked it is from 0 to 99999999.99.
 */
function centsOf(body: unknown): unknown {
  const price = (body as { default_price?: unknown } | null)?.default_price;
  return typeof price === 'number' ? { ...(body as object), default_price: price.toFixed(2) } : body;
}

/**
 * The response cache's key of a read: its route with the parameters as
 * validated (`/products/1/styles`, `/products?page=2&count=5`), not the URL as
 * sent. Parameters the route does not declare (`?cb=…`), their order, `01`
 * for `1` and a default spelt out all give the same answer, so they share its
 * entry: a URL made unique would otherwise skip the cache at will.
 */
function cacheKeyOf(request: FastifyRequest): string {
  const declared = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return restCacheKey(request.routeOptions.url ?? '', request.params as Record<string, unknown>, Object.keys(declared), request.query as Record<string, unknown>);
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

/** A read's answer: its body (or that body already as JSON text), the tags of the products it shows, and its ETag when not a hash of the body. */
type Produced = ({ body: unknown } | { json: string }) & { tags: string[]; etag?: string };

/** What the routes share: the cached read, a product's detail, a write's conditions. */
function routeHelpers(deps: RestDependencies) {
  const { createLoaders, legacy, cache } = deps;
  /**
   * A read route's answer, from the response cache when it is on. `produce`
   * returns the body and the tags of the products it shows; an unknown
   * product's 404 is cached too, tagged with that product. Every 200 has a
   * strong ETag (the product's version for the detail, else a hash of the
   * body, stored with it): If-None-Match naming it is a 304.
   */
  async function cachedRead(request: FastifyRequest, reply: FastifyReply, read: RestRead, produce: () => Promise<Produced>) {
    const run = async () => {
      try {
        const produced = await produce();
        const { tags, etag } = produced;
        const text = 'json' in produced ? produced.json : JSON.stringify(produced.body);
        return { status: 200, body: text, tags, etag: etag ?? bodyETag(text) };
      } catch (error) {
        if (error instanceof ProductNotFound) return { status: 404, body: JSON.stringify({ error: error.message }), tags: [productTag(error.id)] };
        throw error;
      }
    };
    const response = cache ? await cache.fetch(cacheKeyOf(request), run, deps.cheapReads[read]) : { ...(await run()), outcome: undefined };
    if (response.outcome !== undefined) reply.header('x-cache', response.outcome);
    deps.httpCaching.readHeaders(reply, { tags: response.tags, hintSeconds: deps.hintSeconds[read] });
    if (response.status === 200 && response.etag && notModified(reply, request.headers['if-none-match'], response.etag)) return reply.send();
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  }

  /** A product's legacy detail, with its ETag; the product as a write left it, without reading it again. */
  function detailOf({ product, features }: WrittenProduct) {
    return { body: productDetail(product, features, legacy), etag: productETag(product.version) };
  }

  /** One statement: the version (the ETag) and the features it describes come from one snapshot. */
  async function detail(id: number) {
    const product = await createLoaders().productWithFeatures.load(id);
    if (!product) throw notFound(id);
    const { features, ...fields } = product;
    return detailOf({ product: fields, features });
  }

  /** The If-Match of a PUT or DELETE: the versions it may change, or 428 when required and missing. */
  function expectedVersion(request: FastifyRequest) {
    const expected = parseIfMatch(request.headers['if-match']);
    const excluded = parseIfNoneMatch(request.headers['if-none-match']);
    if (expected === undefined && deps.requireIfMatch) throw new PreconditionRequired();
    return { expected, excluded };
  }

  return { cachedRead, detail, detailOf, expectedVersion };
}

type RouteHelpers = ReturnType<typeof routeHelpers>;
type RouteSchemas = ReturnType<typeof routeSchemas>;

/**
 * Every failure answers {"error": "..."}: 400 for bad input, 404 for unknown
 * products, 422 for a reused idempotency key, 503 with Retry-After while
 * Postgres is unavailable, 500 (masked, logged) for anything else. Never a
 * database message.
 */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
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
    return reply.code(503).header('retry-after', String(error.retryAfterSeconds)).send({ error: error.message });
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
}

/** A method a REST path does not have is a 405 with Allow, before anything else (no key check, no body read); an unknown path stays a 404. */
function refuseOtherMethods(scope: FastifyInstance): void {
  const allowed = new AllowedMethods();
  scope.addHook('onRoute', (route) => allowed.add(route.url, ([] as string[]).concat(route.method)));
  // (A callback hook: routed requests pass it without a promise.)
  scope.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const path = request.url.split('?')[0]!;
    const methods = allowed.of(path);
    if (!methods || methods.includes(request.method)) return done();
    void reply.code(405).header('allow', methods.join(', '))
      .send({ error: `method ${request.method} is not allowed on ${JSON.stringify(path)}: use ${methods.join(', ')}` });
  });
}

/** Parameters arrive validated, as numbers (./validation.ts), defaults filled in. */
const query = (request: FastifyRequest) => request.query as { page: number; count: number };
const productId = (request: FastifyRequest) => (request.params as { product_id: number }).product_id;

function registerReads(scope: FastifyInstance, deps: RestDependencies, schemas: RouteSchemas, { cachedRead, detail }: RouteHelpers): void {
  const { createLoaders, pages, legacy, counted } = deps;
  scope.get('/products', { schema: schemas.listProducts }, (request, reply) => counted(request, async () => {
    const { page, count } = query(request);
    return cachedRead(request, reply, 'list', async () => {
      const products = await pages.page(page, count);
      return { body: products.map((p) => listItem(p, legacy)), tags: [LISTING_TAG, ...products.map((p) => productTag(p.id))] };
    });
  }));

  scope.get('/products/:product_id', { schema: schemas.getProduct }, (request, reply) => counted(request, async () => {
    const id = productId(request);
    return cachedRead(request, reply, 'detail', async () => ({ ...(await detail(id)), tags: [productTag(id)] }));
  }));

  scope.get('/products/:product_id/styles', { schema: schemas.getProductStyles }, (request, reply) => counted(request, async () => {
    const id = productId(request);
    return cachedRead(request, reply, 'styles', async () => {
      const styles = await createLoaders().productStyles.load(id);
      if (!styles) throw notFound(id);
      return { json: productStylesJson(id, styles, legacy), tags: [productTag(id)] };
    });
  }));

  scope.get('/products/:product_id/related', { schema: schemas.getRelatedProducts }, (request, reply) => counted(request, async () => {
    const id = productId(request);
    return cachedRead(request, reply, 'related', async () => {
      const loaders = createLoaders();
      const [product, related] = await Promise.all([loaders.product.load(id), loaders.related.load(id)]);
      if (!product) throw notFound(id);
      // Foreign keys guarantee every related id exists; 0 never loads.
      return { body: related.map((row) => row.relatedProductId), tags: [productTag(id)] };
    });
  }));
}

function registerWrites(scope: FastifyInstance, deps: RestDependencies, schemas: RouteSchemas, { detailOf, expectedVersion }: RouteHelpers): void {
  const { service, counted } = deps;
  scope.post('/products', { schema: schemas.createProduct }, (request, reply: FastifyReply) => counted(request, async () => {
    const sent = centsOf(request.body);
    const write = validateProductWrite(sent, 'create', REST_NAMES);
    const idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key'], 'Idempotency-Key');
    // Sidecar mode sends the client's body on to the legacy service (a number price as its cents, as validated).
    const created = await service.createProduct(write as ProductCreate, { idempotencyKey, sourceBody: JSON.stringify(sent) });
    // A repeat of an earlier create answers as that one did, and says so.
    if (created.replayed) reply.header('idempotent-replayed', 'true');
    const { body, etag } = detailOf(created);
    reply.code(201).header('etag', etag);
    return body;
  }));

  scope.put('/products/:product_id', { schema: schemas.updateProduct }, (request, reply: FastifyReply) => counted(request, async () => {
    const id = productId(request);
    const conditions = expectedVersion(request);
    const body = centsOf(request.body);
    const write = validateProductWrite(body, 'update', REST_NAMES);
    const { body: answer, etag } = detailOf(await service.updateProduct(id, write, { ...conditions, sourceBody: JSON.stringify(body) }));
    reply.header('etag', etag);
    return answer;
  }));

  scope.delete('/products/:product_id', { schema: schemas.deleteProduct }, (request, reply: FastifyReply) => counted(request, async () => {
    const id = productId(request);
    await service.deleteProduct(id, expectedVersion(request));
    reply.code(204);
    return null;
  }));
}

export async function registerRestRoutes(app: FastifyInstance, deps: RestDependencies): Promise<void> {
  const { legacy, maxPageSize } = deps;
  const contract = { campus: legacy.campus, maxPageSize, emptyPlaceholders: legacy.emptyPlaceholders, readsNeedKey: deps.readsNeedKey ?? false };
  // The document at GET /openapi.json, built from the route schemas below (registered first: it collects them).
  await registerOpenApi(app, contract);
  const schemas = routeSchemas(contract);
  const shared = Object.values(componentSchemas(contract));
  const helpers = routeHelpers(deps);

  await app.register(async (scope) => {
    // The route schemas are the one source: requests are validated with them
    // (./validation.ts, legacy messages), objects sent are serialized with them
    // (fast-json-stringify), and @fastify/swagger publishes them.
    for (const schema of shared) scope.addSchema(schema);
    // Bodies ignore properties they do not name (the document says so): a
    // `__proto__` key too, dropped by the parser rather than a 400.
    registerJsonParser(scope, { prototypeKeys: 'remove' });
    scope.setValidatorCompiler(restValidatorCompiler(shared));
    refuseOtherMethods(scope);
    scope.addHook('onRequest', deps.guard);
    scope.setErrorHandler(answerError);
    // Every unknown route or method (`PUT /products`, `/products/1/nope`, any
    // path: Fastify has one not-found handler per prefix) is a 404 in the legacy
    // shape, and a body it cannot parse meets the error handler above.
    scope.setNotFoundHandler((request, reply) => reply.code(404).header('cache-control', 'no-store').send({ error: `no route ${request.method} ${JSON.stringify(request.url.split('?')[0])}` }));
    // Only a read's answer may be kept (cachedRead says how); a write's never.
    scope.addHook('onSend', (request, reply, payload, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    registerReads(scope, deps, schemas, helpers);
    registerWrites(scope, deps, schemas, helpers);
  });
}
