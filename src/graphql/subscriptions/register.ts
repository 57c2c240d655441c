// Live subscriptions on the API's server (docs/subscriptions.md): the hub fed
// by the change feed, graphql-ws on the WebSocket upgrade of /graphql, SSE at
// /graphql/stream, and their part in a shutdown (WebSockets closed with 1012,
// streams ended, before Fastify closes the server).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import type { AccessControl } from '../../auth/access.ts';
import type { ChangeFeed } from '../../cache/change-feed.ts';
import type { CatalogBrowse } from '../../catalog/browse/browse.ts';
import { createLoaders } from '../../catalog/reads/loaders.ts';
import type { ProductPages } from '../../catalog/reads/listing-anchors.ts';
import { CatalogQueries } from '../../catalog/reads/queries.ts';
import type { ProductWrites } from '../../catalog/writes/service.ts';
import type { Config } from '../../config.ts';
import type { StatementCounter } from '../../db/pool/pool.ts';
import type { Reads } from '../../db/reads/read-routes.ts';
import type { CatalogueMetrics } from '../../observability/metrics.ts';
import type { GraphQLContext } from '../context.ts';
import { makeFormatError } from '../errors.ts';
import { WsTransport } from './graphql-ws.ts';
import { LiveHub } from './hub.ts';
import { KeyWatch } from './key-watch.ts';
import { LiveCapacity } from './capacity.ts';
import { LiveOperations } from './operation.ts';
import { SSE_PATH, SSE_ROUTE_OPTIONS, SseTransport } from './sse.ts';

export interface LiveDependencies {
  config: Config;
  schema: GraphQLSchema;
  feed: ChangeFeed;
  access: AccessControl;
  /** The primary: a change is heard there first (a replica may not have replayed it yet). */
  reads: Reads;
  statements: StatementCounter;
  pages: ProductPages;
  browse: CatalogBrowse;
  service: ProductWrites;
  metrics: CatalogueMetrics;
  trustedDocuments: Map<string, string> | undefined;
}

export interface Live {
  hub: LiveHub;
  /** What live connections and subscriptions hold under their caps. */
  capacity: LiveCapacity;
  ws: WsTransport;
  sse: SseTransport;
}

/** The path whose WebSocket upgrade speaks graphql-ws. */
export const WS_PATH = '/graphql';

export function registerSubscriptions(app: FastifyInstance, deps: LiveDependencies): Live {
  const { config, schema, access } = deps;
  const formatter = makeFormatError({ mask: !config.exposeErrors, suggestions: config.graphqlFieldSuggestions });
  const formatError = (error: GraphQLError) => formatter(error.toJSON(), error);
  const warn = (message: string, error?: unknown) => app.log.warn({ err: error }, message);
  // The hub's own keyed reads (the same statements as every request's), so
  // its statements are counted apart: hub.stats.statements.
  let hub: LiveHub | undefined = undefined;
  const queries = new CatalogQueries(deps.reads, deps.statements, (statement, requests) => {
    deps.metrics.observeCoalescing(statement, requests);
    if (hub) hub.stats.statements++;
  });
  hub = new LiveHub({
    schema,
    context: (): GraphQLContext => ({
      requestId: 'live',
      operation: { resolved: true, name: undefined, type: 'subscription', errors: 0 },
      loaders: createLoaders(queries, deps.metrics.observeBatch),
      queries,
      pages: deps.pages,
      browse: deps.browse,
      service: deps.service,
      limits: { maxPageSize: config.maxPageSize },
      listing: false,
      // Executions are shared by subscribers: no one caller's (each was checked when it subscribed).
      caller: { key: undefined, address: '' },
      idempotencyKeyHeader: undefined,
    }),
    formatError,
    logError: (error, operationName) => app.log.error({ err: error, operationName }, 'internal error in a live subscription'),
    retryMs: 1_000,
    slowConsumerMs: config.live.slowConsumerMs,
  });
  deps.feed.subscribe({
    changed: (ids) => hub.changed(ids),
    everything: () => hub.everything(),
    // A catalogue reload (data:load --replace): every subscribed product's new state.
    replaced: () => hub.everything(),
    interrupted: () => hub.interrupted(),
  });
  const operations = new LiveOperations({
    schema,
    limits: config.graphqlLimits,
    maxPageSize: config.maxPageSize,
    maxIds: config.live.maxIds,
    trustedDocuments: deps.trustedDocuments,
    introspection: config.graphqlIntrospection,
    access,
    rateLimitCostUnit: config.rateLimitGraphqlCostUnit,
    formatError,
  });
  const originAllowed = originRule(config.cors.origins);
  const clientAddress = clientAddressRule(config.trustProxy);
  const keyWatch = new KeyWatch(access);
  const capacity = new LiveCapacity(config.live.caps);
  const ws = new WsTransport({
    schema, hub, operations, access, clientAddress, keyWatch, capacity,
    originAllowed: (headers) => originAllowed(headers.origin, headers.host),
    maxSubscriptionsPerConnection: config.live.maxSubscriptionsPerConnection,
    pingMs: config.live.pingMs,
    initTimeoutMs: config.live.initTimeoutMs,
    warn,
  });
  const sse = new SseTransport({ schema, hub, operations, access, keyWatch, capacity, originAllowed: (headers) => originAllowed(headers.origin, headers.host) });
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((request.url ?? '').split('?')[0] === WS_PATH) return ws.upgrade(request, socket, head);
    socket.end(`HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n`);
  };
  app.server.on('upgrade', upgrade);
  app.route({ method: ['GET', 'POST'], url: SSE_PATH, ...SSE_ROUTE_OPTIONS, handler: (request, reply) => sse.handle(request, reply) });
  // Before Fastify closes the server (it waits for every connection): subscribers are told to reconnect.
  app.addHook('preClose', async () => {
    app.server.off('upgrade', upgrade);
    keyWatch.close();
    await Promise.all([ws.close(), sse.close()]);
  });
  app.addHook('onClose', async () => hub.close());
  return { hub, capacity, ws, sse };
}

/**
 * Whether a browser page on `origin` may subscribe: CORS_ORIGINS says which
 * origins may call the API (`*`: any; off: none but the API's own). Clients
 * that are not browsers send no Origin.
 */
export function originRule(origins: Config['cors']['origins']): (origin: string | undefined, host: string | undefined) => boolean {
  if (origins === '*') return () => true;
  const listed = new Set(origins === false ? [] : origins);
  return (origin, host) => {
    if (origin === undefined || listed.has(origin)) return true;
    try {
      return host !== undefined && new URL(origin).host === host;
    } catch {
      return false;
    }
  };
}

/** The client address of an upgrade request, as Fastify's request.ip gives it for HTTP (TRUST_PROXY). */
export function clientAddressRule(trustProxy: Config['trustProxy']): (request: IncomingMessage) => string {
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? '';
  const trust = typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy
    : trustProxy === true ? () => true
    : proxyAddr.compile(trustProxy);
  return (request) => {
    const addresses = proxyAddr.all(request, trust);
    return addresses[addresses.length - 1] ?? '';
  };
}
