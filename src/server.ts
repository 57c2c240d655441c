// Builds the Fastify app: GraphQL at /graphql (POST and GET; the IDE for
// browsers), legacy REST, health, readiness and metrics, and the shared
// catalogue services underneath.
import cluster from 'node:cluster';
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createLoaders } from './catalog/loaders.ts';
import { RedisKeyValueCache } from './cache/apq-store.ts';
import { createResponseCache } from './cache/create-response-cache.ts';
import { ChangeFeed } from './cache/change-feed.ts';
import { changeTags, type ResponseCache } from './cache/response-cache.ts';
import { CdnPurge } from './cache/cdn-purge.ts';
import { ProductPages } from './catalog/listing-anchors.ts';
import { CatalogBrowse } from './catalog/browse.ts';
import { CatalogQueries } from './catalog/queries.ts';
import { CatalogService } from './catalog/service.ts';
import type { Config } from './config.ts';
import { connectDatabase, type Database } from './db/pool/pool.ts';
import { poolerTimeoutProblems } from './db/pool/pooler-timeouts.ts';
import { poolReads } from './db/reads/read-routes.ts';
import type { ReadRouter } from './db/reads/replica-router.ts';
import { connectReadReplicas } from './db/reads/connect-replicas.ts';
import { sessionDatabaseUrl } from './db/server/session-url.ts';
import { createApollo } from './graphql/apollo.ts';
import { variableLimitsOf } from './graphql/limits/limits-plugin.ts';
import { PersistedHits } from './graphql/persisted-hits.ts';
import { DirectExecution } from './graphql/direct-execution.ts';
import { KnownOperations } from './graphql/known-operations.ts';
import { CompiledQueries } from './graphql/jit.ts';
import { sentByGet, sentByPost } from './graphql/sent-operation.ts';
import { catalogueSchema } from './graphql/federation/subgraph-schema.ts';
import type { GraphQLContext } from './graphql/context.ts';
import { registerRestRoutes } from './rest/routes.ts';
import { registerDocs } from './rest/docs.ts';
import { loadTrustedDocuments } from './graphql/trusted-documents.ts';
import { registerIde, sendIde } from './graphql/ide.ts';
import { recordOperation } from './observability/graphql-operations.ts';
import { type LogDestination, loggerOptions } from './observability/logging.ts';
import { CatalogueMetrics } from './observability/metrics.ts';
import { registerObservability } from './observability/plugin.ts';
import { AdminAccess } from './observability/admin-access.ts';
import { createAccessControl } from './auth/create-access-control.ts';
import type { AccessControl } from './auth/access.ts';
import { graphqlCaller } from './graphql/access-plugin.ts';
import { restGuard } from './auth/rest-guard.ts';
import { closeConnectionsWhenDraining } from './http/drain.ts';
import { throttled } from './util/throttled.ts';
import { type ConnectionLimits, limitConnections, timeoutOptions } from './http/connections.ts';
import { checkQueryText, InvalidText, registerJsonParser } from './http/json-input.ts';
import { CLIENT_GONE_MESSAGE, clientGone } from './http/client-gone.ts';
import { addVary, ALL_TAG, CATALOGUE_TAG, HttpCaching, notModified, representationETag } from './http/http-caching.ts';
import { registerCors } from './http/cors.ts';
import { REST_READS_AS_GRAPHQL, type RestRead } from './rest/graphql-equivalents.ts';
import { maxAgeOf } from './graphql/cache-hints.ts';
import { readTypeDefs } from './graphql/schema.ts';
import { buildSchema } from 'graphql';
import { type Sidecar, startSidecar } from './sidecar/sidecar.ts';
import { type Live, registerSubscriptions } from './graphql/subscriptions/register.ts';

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
  metrics: CatalogueMetrics;
  /** Where reads go when DATABASE_REPLICA_URLS names read replicas. */
  replicas: ReadRouter | undefined;
  access: AccessControl;
  /** The admin listener's app (ADMIN_PORT), not yet listening; undefined without one. */
  admin: FastifyInstance | undefined;
  /** Sidecar mode (LEGACY_SOURCE_URL): the legacy client and the sync; undefined otherwise. */
  sidecar: Sidecar | undefined;
  /** Cached persisted-query GETs answered before Apollo; undefined without a response cache. */
  persistedHits: PersistedHits | undefined;
  /** Known queries run before Apollo; undefined with a response cache or without graphql-jit. */
  direct: DirectExecution | undefined;
  /** Live subscriptions; undefined with LIVE_SUBSCRIPTIONS=off. */
  live: Live | undefined;
}

/** The parameters of GET /graphql. */
const GRAPHQL_GET_PARAMETERS = ['query', 'operationName', 'variables', 'extensions'] as const;

/** A request's id: the caller's x-request-id when it is 1-128 of [A-Za-z0-9_.-], else a fresh UUID. */
function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : crypto.randomUUID();
}

/** Trusts the `hops` nearest proxies (X-Forwarded-For entries counted from the right). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export interface ServerOptions {
  /** Where JSON log lines go (default stdout): tests read them. */
  logDestination?: LogDestination;
}

export async function buildServer(config: Config, databaseUrl: string, options: ServerOptions = {}): Promise<App> {
  const limits: ConnectionLimits = {
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    maxConnections: config.httpMaxConnections,
  };
  const app = Fastify({
    ...loggerOptions(config.logLevel, options.logDestination),
    // Slow and silent clients are cut off (408), and a process holds at most HTTP_MAX_CONNECTIONS.
    ...timeoutOptions(limits),
    // While draining, src/http/drain.ts answers 503 itself, with Retry-After.
    return503OnClosing: false,
    // Which X-Forwarded-For hops to believe for request.ip (the anonymous rate-limit budget).
    // (A hop count as Fastify does it at run time; its types only take the function form.)
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // A URL the router cannot even decode is bad input like any other: the
    // legacy error shape, not Fastify's default body.
    frameworkErrors: (error, _request, reply) => {
      const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 400;
      const message = error.code === 'FST_ERR_BAD_URL' ? 'the URL is not valid (bad percent-encoding)' : error.message;
      void (reply as unknown as { code(n: number): { send(body: unknown): unknown } }).code(status).send({ error: message });
    },
    genReqId: requestId,
  });
  limitConnections(app.server, limits);
  // JSON bodies must be UTF-8 holding well-formed Unicode text (before any route is registered).
  registerJsonParser(app);
  const database = connectDatabase(databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queueTimeoutMs: config.databasePoolQueueTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
    pgOptions: config.pgOptions,
    transactionPooler: config.databasePooler === 'transaction',
  });
  if (config.databasePooler === 'transaction') {
    // On a connection of its own, outside every request's statement count.
    const expected = { statementTimeoutMs: config.databaseStatementTimeoutMs, lockTimeoutMs: config.databaseLockTimeoutMs };
    await poolerTimeoutProblems(databaseUrl, expected).then(
      (problems) => { for (const problem of problems) app.log.warn(problem); },
      (error: unknown) => app.log.warn({ err: error }, 'could not read the timeouts of connections through the pooler'),
    );
  }
  const service = new CatalogService(database.pool, { idempotencyKeyTtlSeconds: config.idempotencyKeyTtlSeconds });

  // Every instance's committed writes, heard through Postgres (src/cache/change-feed.ts):
  // for the cache (CHANGE_FEED) and live subscriptions (LIVE_SUBSCRIPTIONS).
  const feed = config.changeFeed || config.live.enabled ? new ChangeFeed({
    url: config.changeFeedDatabaseUrl ?? sessionDatabaseUrl(config, databaseUrl),
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    warn: throttled((message, error) => app.log.warn({ err: error }, message)),
  }) : undefined;
  const cache = createResponseCache(config, (message, error) => app.log.warn({ err: error }, message), config.changeFeed ? feed : undefined);
  const replicas = config.databaseReplicaUrls.length === 0 ? undefined : await connectReadReplicas(config, database, cache?.redisClient, {
    warn: (message, error) => app.log.warn({ err: error }, message),
    info: (message) => app.log.info(message),
  });
  if (replicas) {
    // The first listener: a write's position is recorded before the response
    // cache drops what it replaced, so no read after that can pick a replica
    // that has not replayed it.
    service.onProductsChanged(() => replicas.recordWrite());
    app.addHook('onClose', async () => replicas.close());
  }
  const metrics = new CatalogueMetrics({
    pools: { catalogue: database.pool, ...replicas?.replicaPools },
    statements: database.statements,
    cache,
    maxOperationNames: config.metricsMaxOperationNames,
  });
  const queries = new CatalogQueries(replicas ?? poolReads(database.pool), database.statements, metrics.observeCoalescing);
  const browse = new CatalogBrowse(replicas ?? poolReads(database.pool));
  const pages = new ProductPages(queries, {
    refreshMs: config.listingRefreshMs,
    sharedVersion: cache && cache.kind === 'redis' ? () => cache.listingVersion() : undefined,
  });
  const purge = config.httpCache.purgeUrl
    ? new CdnPurge({ url: config.httpCache.purgeUrl, token: config.httpCache.purgeToken, warn: throttled((message, error) => app.log.warn({ err: error }, message)) })
    : undefined;
  if (purge) app.addHook('onClose', async () => purge.close());
  if (feed) {
    // Any instance's write, this one's included, heard once it committed:
    // whatever showed those products is not served from the cache any more,
    // wherever it is stored, and listing anchors follow creates and deletes.
    feed.subscribe({
      changed: (ids, change) => {
        cache?.heard(changeTags(ids, change));
        if (change !== 'updated') pages.invalidate();
      },
      everything: () => {
        cache?.heardEverything();
        pages.invalidate();
      },
      // A load swapped in another catalogue (data:load --replace): every copy anywhere shows the old one.
      replaced: () => {
        cache?.heardEverything();
        pages.invalidate();
        purge?.purge([CATALOGUE_TAG]);
      },
    });
    // Listening before serving (or, if Postgres does not answer yet, serving without the cache until it does).
    await feed.start();
    app.addHook('onClose', async () => feed.close());
  }
  await pages.warm().catch((error: unknown) => app.log.warn({ err: error }, 'could not build listing page anchors yet'));
  if (cache) {
    // After every committed write: drop the cached responses that show the
    // changed products, and the listings when products appeared or vanished.
    service.onProductsChanged((ids, change) => cache.invalidate(changeTags(ids, change)));
    app.addHook('onClose', async () => cache.close());
  }
  if (purge) {
    // After the response cache's invalidation (listeners run in order): a CDN
    // refetching at once must not get the entry the write replaced.
    // ALL_TAG: answers showing too many products to name them (http-caching.ts).
    service.onProductsChanged((ids, change) => purge.purge([...changeTags(ids, change), ALL_TAG]));
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

  // Sidecar mode: writes pass through to the legacy service, a sync keeps the copy (src/sidecar/).
  const sidecar = config.sidecar ? await startSidecar({
    config: config.sidecar, app, service, pool: database.pool, databaseUrl: sessionDatabaseUrl(config, databaseUrl),
    connectTimeoutMs: config.databaseConnectTimeoutMs, registry: metrics.registry,
  }) : undefined;
  // Before the database closes (hooks run in order of registration).
  if (sidecar) app.addHook('onClose', async () => sidecar.close());

  const { access, close: closeAccess } = createAccessControl(config, database, (message, error) => app.log.warn({ err: error }, message));
  app.addHook('onClose', closeAccess);

  app.decorateRequest('sqlStatements', null as unknown as { count: number });
  app.decorateRequest('caller', null as unknown as GraphQLContext['caller']);
  app.addHook('onRequest', async (request, reply) => {
    request.sqlStatements = { count: 0 };
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-sql-statements', String(request.sqlStatements.count));
  });
  app.addHook('onClose', async () => database.close());
  closeConnectionsWhenDraining(app);
  await registerCors(app, config.cors);
  const httpCaching = new HttpCaching(config.httpCache, { readsNeedKey: config.apiKeysForReads === 'required' });

  const observability = registerObservability(app, { metrics, database, cache, readinessTimeoutMs: config.readinessTimeoutMs,
    replicaStatus: replicas ? () => replicas.status() : undefined,
    legacySync: sidecar ? () => sidecar.status() : undefined,
    admin: new AdminAccess({ token: config.admin.token, listener: config.admin.port !== undefined, production: config.nodeEnv === 'production' }),
  });
  // ADMIN_PORT: /healthz, /readyz and /metrics with their details on a listener
  // of their own (startServer listens; it closes with the API's).
  let admin: FastifyInstance | undefined;
  if (config.admin.port !== undefined) {
    const adminApp = Fastify({ ...loggerOptions(config.logLevel, options.logDestination), genReqId: requestId });
    observability.serveAdmin(adminApp);
    app.addHook('onClose', async () => adminApp.close());
    admin = adminApp;
  }
  const newLoaders = () => createLoaders(queries, metrics.observeBatch);

  const schema = catalogueSchema({ federation: config.federation });
  const compiled = config.graphqlJit ? new CompiledQueries(schema) : undefined;
  const known = new KnownOperations({ ...variableLimitsOf(config.graphqlLimits, config.maxPageSize), costUnit: config.rateLimitGraphqlCostUnit });
  // Sidecar mode tracks every request's loaders (the source age): hits go through Apollo there.
  const persistedHits = cache && !sidecar
    ? new PersistedHits({ schema, known, cache, access, httpCaching })
    : undefined;
  const trustedDocuments = config.trustedDocuments ? loadTrustedDocuments() : undefined;
  const apollo = createApollo(app, {
    exposeErrors: config.exposeErrors,
    schema,
    compiled,
    known,
    cache,
    persistedQueries: {
      cache: cache?.redisClient ? new RedisKeyValueCache(cache.redisClient, `${config.cachePrefix}apq:`, config.apqTtlSeconds) : undefined,
      ttlSeconds: config.apqTtlSeconds,
    },
    trustedDocuments,
    access,
    rateLimitCostUnit: config.rateLimitGraphqlCostUnit,
    limits: config.graphqlLimits,
    maxPageSize: config.maxPageSize,
    introspection: config.graphqlIntrospection,
    fieldSuggestions: config.graphqlFieldSuggestions,
    httpCaching,
    federation: config.federation,
  });
  await apollo.start();
  // Fastify runs onClose hooks once in-flight requests have finished.
  app.addHook('onClose', async () => apollo.stop());
  const newContext = async (request: FastifyRequest): Promise<GraphQLContext> => ({
    requestId: request.id,
    operation: recordOperation(request),
    loaders: sidecar ? tracked(request, newLoaders()) : newLoaders(),
    queries,
    pages,
    browse,
    service,
    limits: { maxPageSize: config.maxPageSize },
    listing: false,
    caller: request.caller,
    idempotencyKeyHeader: request.headers['idempotency-key'],
  });
  function tracked(request: FastifyRequest, loaders: ReturnType<typeof newLoaders>) {
    sidecar?.track(request, loaders);
    return loaders;
  }
  const counted = <T>(request: FastifyRequest, fn: () => Promise<T>) => database.statements.bind(request.sqlStatements, fn);
  // Known queries run without Apollo's pipeline when no response cache has a say (src/graphql/direct-execution.ts).
  const direct = compiled && !cache
    ? new DirectExecution({ schema, known, compiled, access, httpCaching, context: newContext, counted })
    : undefined;
  // A request the direct execution handed over (its result had errors) runs in the context it ran in.
  const context = async (request: FastifyRequest): Promise<GraphQLContext> => direct?.contextOf(request) ?? newContext(request);
  const graphql = fastifyApolloHandler(apollo, { context });
  // Everything a request does runs inside its statement-counting scope.
  const handler: typeof graphql = function (request, reply) {
    return counted(request, async () => graphql.call(this, request, reply));
  };
  registerIde(app);
  const identifyCaller = graphqlCaller(access);
  // Text that is not Unicode (src/http/json-input.ts) is a GraphQL input error naming the field;
  // a body the client never finished is its doing (src/http/client-gone.ts); other errors keep the answers they had.
  const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A GraphQL request that failed before Apollo ran it: its completion line and metrics count the error.
    (request.graphqlOperation ?? recordOperation(request)).errors += 1;
    if (clientGone(request)) {
      request.log.info({ reason: error.message }, CLIENT_GONE_MESSAGE);
      return reply.code(400).send({ errors: [{ message: CLIENT_GONE_MESSAGE, extensions: { code: 'BAD_REQUEST' } }] });
    }
    if (error instanceof InvalidText) {
      return reply.code(400).send({ errors: [{ message: error.message, extensions: { code: 'BAD_USER_INPUT', field: error.field } }] });
    }
    // A body Fastify could not take (415, 413, bad JSON): the GraphQL error shape, with the status it chose.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).header('cache-control', 'no-store').send({ errors: [{ message: error.message, extensions: { code: 'BAD_REQUEST' } }] });
    }
    throw error;
  };
  // Every answer depends on Accept (the media type, and with it the status of
  // a request error), and on the key when reads need one.
  // Callback hooks, not async ones: a cached answer passes them without a promise each.
  const graphqlVaryNames = ['Accept', ...httpCaching.vary];
  const graphqlVary = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    addVary(reply, graphqlVaryNames);
    done();
  };
  // A cacheable GET answer (src/graphql/cache-control-plugin.ts) gets a strong ETag, and a 304 when the client has it.
  const graphqlETag = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (reply.statusCode !== 200 || typeof payload !== 'string' || reply.getHeader('cache-control') === 'no-store') return done(null, payload);
    // A cached answer comes with its tag, computed when it was stored (src/graphql/persisted-hits.ts).
    const stored = reply.getHeader('etag');
    const etag = typeof stored === 'string' ? stored : representationETag(String(reply.getHeader('content-type')), payload);
    done(null, notModified(reply, request.headers['if-none-match'], etag) ? '' : payload);
  };
  app.post('/graphql', { onRequest: [graphqlVary, identifyCaller], errorHandler }, async function (request, reply) {
    if (direct && await direct.answer(request, reply, sentByPost(request.body))) return reply;
    return handler.call(this, request, reply);
  });
  app.get('/graphql', { constraints: {}, onRequest: [graphqlVary, identifyCaller], onSend: graphqlETag, errorHandler }, async function (request, reply) {
    const query = request.query as Record<string, unknown>;
    const wantsHtml = (request.headers.accept ?? '').includes('text/html') && !query.query;
    if (wantsHtml) return sendIde(reply);
    checkQueryText(request.url, GRAPHQL_GET_PARAMETERS, { variables: query.variables, extensions: query.extensions });
    // Answered before Apollo only for GET: Apollo answers a HEAD (this route's too) with its 405.
    if (request.method === 'GET') {
      if (persistedHits && await persistedHits.answer(request, reply)) return reply;
      if (direct && await direct.answer(request, reply, sentByGet(query))) return reply;
    }
    return handler.call(this, request, reply);
  });
  await registerRestRoutes(app, {
    createLoaders: newLoaders, pages, service,
    legacy: { campus: config.legacyCampus, emptyPlaceholders: config.legacyEmptyPlaceholders },
    maxPageSize: config.maxPageSize,
    cache,
    counted,
    guard: restGuard(access),
    requireIfMatch: config.writesRequireIfMatch,
    httpCaching,
    hintSeconds: restHintSeconds(),
    readsNeedKey: config.apiKeysForReads === 'required',
  });
  registerDocs(app);
  // Subscriptions: graphql-ws on /graphql's WebSocket upgrade, SSE at /graphql/stream (src/graphql/subscriptions/).
  const live = feed && config.live.enabled ? registerSubscriptions(app, {
    config, schema, feed, access, pages, browse, service, trustedDocuments, metrics,
    reads: poolReads(database.pool), statements: database.statements,
  }) : undefined;
  return { live, app, database, service, pages, cache, metrics, replicas, access, admin, sidecar, persistedHits, direct };
}

/** For each REST read, the max-age the schema's hints allow the GraphQL query showing the same fields. */
function restHintSeconds(): Record<RestRead, number> {
  const schema = buildSchema(readTypeDefs());
  return Object.fromEntries(Object.entries(REST_READS_AS_GRAPHQL).map(([read, query]) => [read, maxAgeOf(schema, query)])) as Record<RestRead, number>;
}

export async function startServer(config: Config, databaseUrl: string, log: (message: string) => void): Promise<FastifyInstance> {
  const { app, admin } = await buildServer(config, databaseUrl);
  if (admin) {
    await admin.listen({ host: config.admin.host, port: config.admin.port });
    const address = admin.server.address();
    const host = config.admin.host.includes(':') ? `[${config.admin.host}]` : config.admin.host;
    log(`admin endpoints (/healthz, /readyz, /metrics) on http://${host}:${typeof address === 'object' && address ? address.port : config.admin.port}`);
  }
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log(`GraphQL API on http://localhost:${port}/graphql (open it in a browser for the GraphiQL IDE)`);
  return app;
}
