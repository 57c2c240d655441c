// Builds the Fastify app: GraphQL at /graphql (POST and GET; the IDE for
// browsers), legacy REST, health, readiness and metrics, and the shared
// catalogue services underneath.
import cluster from 'node:cluster';
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type CatalogLoaders, createLoaders } from './catalog/reads/loaders.ts';
import { RedisKeyValueCache } from './cache/apq-store.ts';
import { createResponseCache } from './cache/create-response-cache.ts';
import { ChangeFeed } from './cache/change-feed.ts';
import { changeTags, type ResponseCache } from './cache/response-cache.ts';
import { CdnPurge } from './cache/cdn-purge.ts';
import { ProductPages } from './catalog/reads/listing-anchors.ts';
import { CatalogBrowse } from './catalog/browse/browse.ts';
import { ExpensiveReads } from './catalog/browse/expensive-reads.ts';
import { ResolutionMemo } from './search/dictionary/resolution-memo.ts';
import { CatalogQueries } from './catalog/reads/queries.ts';
import { CatalogService } from './catalog/writes/service.ts';
import type { Config } from './config.ts';
import { connectDatabase, type Database } from './db/pool/pool.ts';
import { poolerTimeoutProblems } from './db/pool/pooler-timeouts.ts';
import { poolReads } from './db/reads/read-routes.ts';
import type { ReadRouter } from './db/reads/replica-router.ts';
import { connectReadReplicas } from './db/reads/connect-replicas.ts';
import { sessionDatabaseUrl } from './db/server/session-url.ts';
import { createApollo } from './graphql/apollo.ts';
import { requestLimitsOf } from './graphql/limits/limits-plugin.ts';
import { PreparedOperations } from './graphql/prepared-operations.ts';
import { registerGraphqlEndpoint } from './graphql/endpoint.ts';
import { operationStages } from './graphql/stages.ts';
import type { FastPath } from './graphql/fast-path.ts';
import { catalogueSchema } from './graphql/federation/subgraph-schema.ts';
import type { GraphQLContext } from './graphql/context.ts';
import { registerRestRoutes } from './rest/routes.ts';
import { registerDocs } from './rest/docs.ts';
import { loadTrustedDocuments } from './graphql/trusted-documents.ts';
import { recordOperation } from './observability/graphql-operations.ts';
import { type LogDestination, loggerOptions } from './observability/logging.ts';
import { containsApiKey } from './util/api-key-format.ts';
import { CatalogueMetrics } from './observability/metrics.ts';
import { registerObservability } from './observability/plugin.ts';
import { traceRequests } from './observability/request-traces.ts';
import { startTraces } from './tracing/sdk.ts';
import { traces } from './tracing/spans.ts';
import { AdminAccess } from './observability/admin-access.ts';
import { createAccessControl } from './auth/create-access-control.ts';
import type { AccessControl } from './auth/access.ts';
import { restGuard } from './auth/rest-guard.ts';
import { MemoryRateLimiter } from './ratelimit/memory-limiter.ts';
import { closeConnectionsWhenDraining } from './http/drain.ts';
import { throttled } from './util/throttled.ts';
import { type ConnectionLimits, connectionRefusals, limitConnections, timeoutOptions, trustedProxyRule } from './http/connections.ts';
import { registerJsonParser } from './http/json-input.ts';
import { ALL_TAG, CATALOGUE_TAG, HttpCaching } from './http/http-caching.ts';
import { registerCors } from './http/cors.ts';
import { REST_READS_AS_GRAPHQL, type RestRead } from './rest/graphql-equivalents.ts';
import { maxAgeOf } from './graphql/cache-hints.ts';
import { isCheapRead, operationCost, readsByKey } from './graphql/cost.ts';
import { readTypeDefs } from './graphql/schema.ts';
import { type GraphQLSchema, buildSchema, getOperationAST, parse } from 'graphql';
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
  /** Apollo Server: what users meet; requests for known operations are taken through the same stages by their runner (src/graphql/fast-path.ts). */
  apollo: ApolloServer<GraphQLContext>;
  /** Checked queries answered without Apollo's pipeline (src/graphql/fast-path.ts); undefined without graphql-jit. */
  fastPath: FastPath | undefined;
  /** Live subscriptions; undefined with LIVE_SUBSCRIPTIONS=off. */
  live: Live | undefined;
  /** Recent searches' resolved words; undefined without a change feed (src/search/dictionary/resolution-memo.ts). */
  memo: ResolutionMemo | undefined;
}

/**
 * A request's id: the caller's x-request-id when it is 1-128 of [A-Za-z0-9_.-]
 * and holds nothing shaped like an API key (an id is logged on every line and
 * echoed back), else a fresh UUID.
 */
function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) && !containsApiKey(incoming) ? incoming : crypto.randomUUID();
}

/** Trusts the `hops` nearest proxies (X-Forwarded-For entries counted from the right). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export interface ServerOptions {
  /** Where JSON log lines go (default stdout): tests read them. */
  logDestination?: LogDestination;
}

/** Fastify with the connection limits, the request id, the trusted proxies and the JSON body parser. */
function createFastify(config: Config, options: ServerOptions): FastifyInstance {
  const limits: ConnectionLimits = {
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    maxConnections: config.httpMaxConnections,
    maxConnectionsPerAddress: config.httpMaxConnectionsPerAddress,
    newConnectionsPerAddressPerSecond: config.httpNewConnectionsPerAddressPerSecond,
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
  limitConnections(app.server, limits, trustedProxyRule(config.trustProxy));
  // JSON bodies must be UTF-8 holding well-formed Unicode text (before any route is registered).
  registerJsonParser(app);
  return app;
}

/** The counted pool (and, behind a transaction pooler, a warning for each timeout it does not pass on). */
async function connectCatalogue(app: FastifyInstance, config: Config, databaseUrl: string): Promise<Database> {
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
  return database;
}

/** What follows a committed write: the parts that keep copies of the catalogue, each told what changed. */
interface ChangeListeners {
  service: CatalogService;
  cache: ResponseCache | undefined;
  pages: ProductPages;
  memo: ResolutionMemo | undefined;
  purge: CdnPurge | undefined;
}

/**
 * Any instance's write, this one's included, heard once it committed:
 * whatever showed those products is not served from the cache any more,
 * wherever it is stored, and listing anchors follow creates and deletes.
 */
function listenToFeed(feed: ChangeFeed, { cache, pages, memo, purge }: ChangeListeners): void {
  feed.subscribe({
    changed: (ids, change) => {
      cache?.heard(changeTags(ids, change));
      if (change !== 'updated') pages.invalidate();
      // A delete leaves the dictionary as it was (lexemes are never removed, counts change with a load).
      if (change !== 'deleted') memo?.clear();
    },
    everything: () => {
      cache?.heardEverything();
      pages.invalidate();
      memo?.clear();
    },
    // A load swapped in another catalogue (data:load --replace): every copy anywhere shows the old one.
    replaced: () => {
      cache?.heardEverything();
      pages.invalidate();
      purge?.purge([CATALOGUE_TAG]);
      memo?.clear();
    },
    interrupted: () => memo?.clear(),
  });
}

/** This process's own writes, before they answer (listeners run in order of registration). */
function listenToWrites(app: FastifyInstance, { service, cache, pages, memo, purge }: ChangeListeners): void {
  if (cache) {
    // After every committed write: drop the cached responses that show the
    // changed products, and the listings when products appeared or vanished.
    service.onProductsChanged((ids, change) => cache.invalidate(changeTags(ids, change)));
  }
  if (purge) {
    // After the response cache's invalidation: a CDN refetching at once must
    // not get the entry the write replaced.
    // ALL_TAG: answers showing too many products to name them (http-caching.ts).
    service.onProductsChanged((ids, change) => purge.purge([...changeTags(ids, change), ALL_TAG]));
  }
  // Its next search sees what the write added to the dictionary.
  if (memo) service.onProductsChanged((_ids, change) => { if (change !== 'deleted') memo.clear(); });
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
}

/** Every request's id echoed, and the SQL statements it sent counted and answered in x-sql-statements. */
function countStatements(app: FastifyInstance): void {
  app.decorateRequest('sqlStatements', null as unknown as { count: number });
  app.decorateRequest('caller', null as unknown as GraphQLContext['caller']);
  // Callback hooks: every request passes them, without a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    request.sqlStatements = { count: 0 };
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-sql-statements', String(request.sqlStatements.count));
    done(null, payload);
  });
}

/** /healthz, /readyz and /metrics; with ADMIN_PORT, also on a listener of their own (startServer listens; it closes with the API's). */
function registerAdmin(app: FastifyInstance, config: Config, options: ServerOptions, parts: Parameters<typeof registerObservability>[1]): FastifyInstance | undefined {
  const observability = registerObservability(app, parts);
  if (config.admin.port === undefined) return undefined;
  const adminApp = Fastify({ ...loggerOptions(config.logLevel, options.logDestination), genReqId: requestId });
  observability.serveAdmin(adminApp);
  app.addHook('onClose', async () => adminApp.close());
  return adminApp;
}

/** The catalogue's shared parts: reads, browse, listing pages, the change feed, the caches and what keeps them fresh. */
async function catalogueParts(app: FastifyInstance, config: Config, databaseUrl: string, database: Database) {
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
  // Searches, facet counts and browse pages share one limit per process (src/catalog/browse/expensive-reads.ts).
  // Its slots rest only after statements that ran beside keyed reads (the batches counted below).
  let keyedReads = 0;
  const expensiveReads = new ExpensiveReads(config.expensiveReads, () => keyedReads);
  const metrics = new CatalogueMetrics({
    expensiveReads,
    connectionsRefused: connectionRefusals(app.server),
    pools: { catalogue: database.pool, ...replicas?.replicaPools },
    statements: database.statements,
    cache,
    maxOperationNames: config.metricsMaxOperationNames,
  });
  const queries = new CatalogQueries(replicas ?? poolReads(database.pool), database.statements, (statement, requests) => {
    keyedReads++;
    metrics.observeCoalescing(statement, requests);
  });
  // Recent searches' words as resolved, while the feed can tell when the dictionary changes (src/search/dictionary/resolution-memo.ts).
  const memo = feed ? new ResolutionMemo(() => feed.listening) : undefined;
  const browse = new CatalogBrowse(replicas ?? poolReads(database.pool), memo, expensiveReads);
  const pages = new ProductPages(queries, {
    refreshMs: config.listingRefreshMs,
    sharedVersion: cache && cache.kind === 'redis' ? () => cache.listingVersion() : undefined,
  });
  const purge = config.httpCache.purgeUrl
    ? new CdnPurge({ url: config.httpCache.purgeUrl, token: config.httpCache.purgeToken, warn: throttled((message, error) => app.log.warn({ err: error }, message)) })
    : undefined;
  if (purge) app.addHook('onClose', async () => purge.close());
  const listeners: ChangeListeners = { service, cache, pages, memo, purge };
  if (feed) {
    listenToFeed(feed, listeners);
    // Listening before serving (or, if Postgres does not answer yet, serving without the cache until it does).
    await feed.start();
    app.addHook('onClose', async () => feed.close());
  }
  await pages.warm().catch((error: unknown) => app.log.warn({ err: error }, 'could not build listing page anchors yet'));
  if (cache) app.addHook('onClose', async () => cache.close());
  listenToWrites(app, listeners);
  return { service, feed, cache, replicas, metrics, queries, memo, browse, pages };
}

export async function buildServer(config: Config, databaseUrl: string, options: ServerOptions = {}): Promise<App> {
  // Traces (OTEL_* variables): the SDK starts before anything that writes spans is made; off, it is never loaded.
  const tracing = config.traces ? await startTraces(config.traces) : undefined;
  const app = createFastify(config, options);
  // First of every hook: the request's span is open before anything else runs for it.
  if (traces.tracer) traceRequests(app, traces.tracer);
  const database = await connectCatalogue(app, config, databaseUrl);
  const { service, feed, cache, replicas, metrics, queries, memo, browse, pages } = await catalogueParts(app, config, databaseUrl, database);

  // Sidecar mode: writes pass through to the legacy service, a sync keeps the copy (src/sidecar/).
  const sidecar = config.sidecar ? await startSidecar({
    config: config.sidecar, app, service, pool: database.pool, databaseUrl: sessionDatabaseUrl(config, databaseUrl),
    connectTimeoutMs: config.databaseConnectTimeoutMs, registry: metrics.registry,
  }) : undefined;
  // Before the database closes (hooks run in order of registration).
  if (sidecar) app.addHook('onClose', async () => sidecar.close());
  // What the APIs write through: here, or in sidecar mode the legacy service first.
  const writes = sidecar?.writes ?? service;

  const { access, close: closeAccess } = createAccessControl(config, database, (message, error) => app.log.warn({ err: error }, message));
  app.addHook('onClose', closeAccess);
  countStatements(app);
  app.addHook('onClose', async () => database.close());
  closeConnectionsWhenDraining(app);
  await registerCors(app, config.cors);
  const httpCaching = new HttpCaching(config.httpCache, { readsNeedKey: config.apiKeysForReads === 'required' });

  const admin = registerAdmin(app, config, options, { metrics, database, cache, readinessTimeoutMs: config.readinessTimeoutMs,
    replicaStatus: replicas ? () => replicas.status() : undefined,
    legacySync: sidecar ? () => sidecar.status() : undefined,
    admin: new AdminAccess({
      token: config.admin.token, listener: config.admin.port !== undefined, production: config.nodeEnv === 'production',
      // Wrong admin tokens per address, counted in process whatever RATE_LIMIT says (the admin routes answer per process).
      failures: { buckets: new MemoryRateLimiter(), perMinute: config.admin.authFailuresPerMinute },
    }),
  });
  const newLoaders = () => createLoaders(queries, metrics.observeBatch);
  const counted = <T>(request: FastifyRequest, fn: () => Promise<T>) => database.statements.bind(request.sqlStatements, fn);
  const schema = catalogueSchema({ federation: config.federation });
  const trustedDocuments = config.trustedDocuments ? loadTrustedDocuments() : undefined;
  const { apollo, fastPath } = await registerGraphql(app, config, {
    schema, cache, access, httpCaching, trustedDocuments, counted,
    context: (request) => ({
      requestId: request.id,
      operation: recordOperation(request),
      loaders: sidecar ? tracked(sidecar, request, newLoaders()) : newLoaders(),
      queries,
      pages,
      browse: browse.forRequest(),
      service: writes,
      limits: { maxPageSize: config.maxPageSize },
      listing: false,
      caller: request.caller,
      idempotencyKeyHeader: request.headers['idempotency-key'],
    }),
  });
  // The schema's types alone: what the REST reads' GraphQL equivalents show and cost.
  const restSchema = buildSchema(readTypeDefs());
  await registerRestRoutes(app, {
    createLoaders: newLoaders, pages, service: writes,
    legacy: { campus: config.legacyCampus, emptyPlaceholders: config.legacyEmptyPlaceholders },
    maxPageSize: config.maxPageSize,
    cache,
    counted,
    guard: restGuard(access),
    requireIfMatch: config.writesRequireIfMatch,
    httpCaching,
    hintSeconds: restHintSeconds(restSchema),
    cheapReads: restCheapReads(restSchema),
    readsNeedKey: config.apiKeysForReads === 'required',
  });
  registerDocs(app);
  // Subscriptions: graphql-ws on /graphql's WebSocket upgrade, SSE at /graphql/stream (src/graphql/subscriptions/).
  const live = feed && config.live.enabled ? registerSubscriptions(app, {
    config, schema, feed, access, pages, browse, service: writes, trustedDocuments, metrics,
    reads: poolReads(database.pool), statements: database.statements,
  }) : undefined;
  // Registered last, so it closes last (hooks run in order of registration): spans of the closing are exported too.
  if (tracing) app.addHook('onClose', async () => tracing.shutdown());
  return { live, app, database, service, pages, cache, metrics, replicas, access, admin, sidecar, apollo, fastPath, memo };
}

/** A GraphQL request's loaders, followed in sidecar mode: the products they read count as recently requested. */
function tracked(sidecar: Sidecar, request: FastifyRequest, loaders: CatalogLoaders): CatalogLoaders {
  sidecar.track(request, loaders);
  return loaders;
}

/** Apollo Server on /graphql (its operations prepared once, persisted queries in Redis when there is one), and the endpoint in front of it. */
async function registerGraphql(app: FastifyInstance, config: Config, parts: {
  schema: GraphQLSchema;
  cache: ResponseCache | undefined;
  access: AccessControl;
  httpCaching: HttpCaching;
  trustedDocuments: ReturnType<typeof loadTrustedDocuments> | undefined;
  counted: <T>(request: FastifyRequest, fn: () => Promise<T>) => Promise<T>;
  context: (request: FastifyRequest) => GraphQLContext;
}): Promise<{ apollo: ApolloServer<GraphQLContext>; fastPath: FastPath | undefined }> {
  const { schema, cache, access, httpCaching } = parts;
  const operations = new PreparedOperations(schema, requestLimitsOf(config.graphqlLimits, config.maxPageSize, config.rateLimitGraphqlCostUnit));
  // The operation stages of every GraphQL request, run by both Apollo and the known-operation path.
  const stages = operationStages({ access, limits: config.graphqlLimits, trustedDocuments: parts.trustedDocuments });
  const apollo = createApollo(app, {
    exposeErrors: config.exposeErrors,
    schema,
    jit: config.graphqlJit,
    operations,
    stages,
    cache,
    persistedQueries: {
      cache: cache?.redisClient ? new RedisKeyValueCache(cache.redisClient, `${config.cachePrefix}apq:`, config.apqTtlSeconds) : undefined,
      ttlSeconds: config.apqTtlSeconds,
    },
    trustedDocuments: parts.trustedDocuments,
    access,
    limits: config.graphqlLimits,
    introspection: config.graphqlIntrospection,
    fieldSuggestions: config.graphqlFieldSuggestions,
    httpCaching,
    federation: config.federation,
  });
  await apollo.start();
  // Fastify runs onClose hooks once in-flight requests have finished.
  app.addHook('onClose', async () => apollo.stop());
  const fastPath = registerGraphqlEndpoint(app, {
    apollo, operations, stages, jit: config.graphqlJit, cache, access, httpCaching, context: parts.context, counted: parts.counted,
    ide: { enabled: config.graphqlIde, introspection: config.graphqlIntrospection },
  });
  return { apollo, fastPath };
}

/** For each REST read, the max-age the schema's hints allow the GraphQL query showing the same fields. */
function restHintSeconds(schema: GraphQLSchema): Record<RestRead, number> {
  return Object.fromEntries(Object.entries(REST_READS_AS_GRAPHQL).map(([read, query]) => [read, maxAgeOf(schema, query)])) as Record<RestRead, number>;
}

/** For each REST read, whether the GraphQL query showing the same fields is a cheap read (src/graphql/cost.ts). */
function restCheapReads(schema: GraphQLSchema): Record<RestRead, boolean> {
  return Object.fromEntries(Object.entries(REST_READS_AS_GRAPHQL).map(([read, query]) => {
    const document = parse(query);
    return [read, isCheapRead(readsByKey(document, getOperationAST(document)!), operationCost(schema, document))];
  })) as Record<RestRead, boolean>;
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
  log(`GraphQL API on http://localhost:${port}/graphql (open it in a browser for ${config.graphqlIde ? 'the GraphiQL IDE' : 'how to query it; GRAPHQL_IDE=on serves the GraphiQL IDE there'})`);
  return app;
}
