// Builds the Fastify app: GraphQL at /graphql (POST and GET; the IDE for
// browsers), health, and the shared catalogue services underneath.
import cluster from 'node:cluster';
import crypto from 'node:crypto';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { createLoaders } from './catalog/loaders.ts';
import { RedisKeyValueCache } from './cache/apq-store.ts';
import { createResponseCache } from './cache/create.ts';
import { LISTING_TAG, productTag, type ResponseCache } from './cache/response-cache.ts';
import { ProductPages } from './catalog/pages.ts';
import { CatalogQueries } from './catalog/queries.ts';
import { CatalogService } from './catalog/service.ts';
import type { Config } from './config.ts';
import { connectDatabase, type Database } from './db/prisma.ts';
import { transactionSettings, Transactions } from './db/transaction.ts';
import { createApollo } from './graphql/apollo.ts';
import type { GraphQLContext } from './graphql/context.ts';
import { registerRestRoutes } from './rest/routes.ts';
import { registerOpenApi } from './rest/openapi.ts';
import { registerDocs } from './rest/docs.ts';
import { loadTrustedDocuments } from './graphql/trusted-documents.ts';
import { registerIde, sendIde } from './graphql/ide.ts';
import { closeConnectionsWhenDraining } from './http/drain.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** SQL statements this request sent to Postgres. */
    sqlStatements: { count: number };
  }
}

export interface App {
  app: FastifyInstance;
  database: Database;
  service: CatalogService;
  pages: ProductPages;
  cache: ResponseCache | undefined;
}

export async function buildServer(config: Config, databaseUrl: string): Promise<App> {
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    // A URL the router cannot even decode is bad input like any other: the
    // legacy error shape, not Fastify's default body.
    frameworkErrors: (error, _request, reply) => {
      const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 400;
      const message = error.code === 'FST_ERR_BAD_URL' ? 'the URL is not valid (bad percent-encoding)' : error.message;
      void (reply as unknown as { code(n: number): { send(body: unknown): unknown } }).code(status).send({ error: message });
    },
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : crypto.randomUUID();
    },
  });
  const database = connectDatabase(databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queueTimeoutMs: config.databasePoolQueueTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  const queries = new CatalogQueries(database.pool);
  const service = new CatalogService(database.prisma, {
    transactions: new Transactions(database.prisma, transactionSettings(config)),
    idempotencyKeyTtlSeconds: config.idempotencyKeyTtlSeconds,
  });

  const cache = createResponseCache(config, (message, error) => app.log.warn({ err: error }, message));
  const pages = new ProductPages(queries, cache && cache.kind === 'redis' ? () => cache.listingVersion() : undefined);
  await pages.warm().catch((error: unknown) => app.log.warn({ err: error }, 'could not build listing page anchors yet'));
  if (cache) {
    // After every committed write: drop the cached responses that show the
    // changed products, and the listings when products appeared or vanished.
    service.onProductsChanged((ids, change) => cache.invalidate([...ids.map(productTag), ...(change === 'updated' ? [] : [LISTING_TAG])]));
    app.addHook('onClose', async () => cache.close());
  }
  service.onProductsChanged((_ids, change) => {
    if (change === 'updated') return;
    pages.invalidate();
    // In a cluster, the other workers' listing pages shift too (src/main.ts relays this).
    if (cluster.isWorker) process.send?.({ type: 'catalogue-changed' });
  });
  if (cluster.isWorker) {
    const onMessage = (message: unknown) => {
      if ((message as { type?: string })?.type === 'catalogue-changed') pages.invalidate();
    };
    process.on('message', onMessage);
    app.addHook('onClose', async () => { process.off('message', onMessage); });
  }

  app.decorateRequest('sqlStatements', null as unknown as { count: number });
  app.addHook('onRequest', async (request, reply) => {
    request.sqlStatements = { count: 0 };
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-sql-statements', String(request.sqlStatements.count));
  });
  app.addHook('onClose', async () => database.close());
  closeConnectionsWhenDraining(app);

  // Liveness, plus the response cache's counters (hits, misses, and store
  // failures that were answered from Postgres instead).
  app.get('/healthz', async () => ({
    status: 'ok',
    cache: cache ? { store: cache.kind, ...cache.stats, pendingInvalidations: cache.pendingInvalidations } : { store: 'off' },
  }));

  const apollo = createApollo(app, {
    exposeErrors: config.exposeErrors,
    jit: config.graphqlJit,
    cache,
    persistedQueries: {
      cache: cache?.redisClient ? new RedisKeyValueCache(cache.redisClient, `${config.cachePrefix}apq:`, config.apqTtlSeconds) : undefined,
      ttlSeconds: config.apqTtlSeconds,
    },
    trustedDocuments: config.trustedDocuments ? loadTrustedDocuments() : undefined,
  });
  await apollo.start();
  // Fastify runs onClose hooks once in-flight requests have finished.
  app.addHook('onClose', async () => apollo.stop());
  const context = async (request: { id: string; headers: Record<string, string | string[] | undefined> }): Promise<GraphQLContext> => ({
    requestId: request.id,
    loaders: createLoaders(queries),
    queries,
    pages,
    service,
    limits: { maxPageSize: config.maxPageSize },
    listing: false,
    idempotencyKeyHeader: request.headers['idempotency-key'],
  });
  const graphql = fastifyApolloHandler(apollo, { context });
  // Everything a request does runs inside its statement-counting scope.
  const handler: typeof graphql = function (request, reply) {
    return database.statements.bind(request.sqlStatements, () => graphql.call(this, request, reply));
  };
  registerIde(app);
  app.post('/graphql', handler);
  app.get('/graphql', { constraints: {} }, async function (request, reply) {
    const wantsHtml = (request.headers.accept ?? '').includes('text/html') && !(request.query as Record<string, unknown>).query;
    if (wantsHtml) return sendIde(reply);
    return handler.call(this, request, reply);
  });
  await registerRestRoutes(app, {
    queries, pages, service,
    legacy: { campus: config.legacyCampus, emptyPlaceholders: config.legacyEmptyPlaceholders },
    maxPageSize: config.maxPageSize,
    cache,
    counted: (request, fn) => database.statements.bind(request.sqlStatements, fn),
  });
  registerOpenApi(app, { campus: config.legacyCampus, maxPageSize: config.maxPageSize, emptyPlaceholders: config.legacyEmptyPlaceholders });
  registerDocs(app);
  return { app, database, service, pages, cache };
}

export async function startServer(config: Config, databaseUrl: string, log: (message: string) => void): Promise<FastifyInstance> {
  const { app } = await buildServer(config, databaseUrl);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log(`GraphQL API on http://localhost:${port}/graphql (open it in a browser for the GraphiQL IDE)`);
  return app;
}
