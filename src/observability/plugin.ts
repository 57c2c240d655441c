// Operations endpoints and per-request measurement:
//   GET /healthz  alive (always 200 while the process serves), with cache counters
//   GET /readyz   Postgres (and Redis, when the cache uses it) answering: 200 or 503
//   GET /metrics  Prometheus text; with cluster workers, the whole cluster's
// and an onResponse hook that counts every request into the metrics. The
// counters, the checks' details and /metrics are shown only to whom
// admin-access.ts allows (ADMIN_TOKEN, or the ADMIN_PORT listener); anyone
// else gets {"status": "ok"}, {"status": "ready" | "unavailable"} and no metrics.
import cluster from 'node:cluster';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { Database } from '../db/pool/pool.ts';
import { type AdminAccess, metricsRefusal } from './admin-access.ts';
import { ClusterMetrics } from './cluster-metrics.ts';
import type { CatalogueMetrics } from './metrics.ts';
import { type Check, checkReadiness, postgresCheck, redisCheck } from './readiness.ts';

export interface ObservabilityOptions {
  metrics: CatalogueMetrics;
  database: Database;
  cache: ResponseCache | undefined;
  /** Longest /readyz waits for any one dependency. */
  readinessTimeoutMs: number;
  /** With read replicas: where reads went, each replica's health and position (shown by /healthz). */
  replicaStatus?: () => unknown;
  /** Sidecar mode: the legacy sync's state (shown by /readyz and /healthz; never makes /readyz fail: reads serve from the copy). */
  legacySync?: () => unknown;
  /** Who may see the details and /metrics. */
  admin: AdminAccess;
}

export interface Observability {
  /** Serves /healthz, /readyz and /metrics on the admin listener too (its requests are not counted in the metrics). */
  serveAdmin(adminApp: FastifyInstance): void;
}

export function registerObservability(app: FastifyInstance, options: ObservabilityOptions): Observability {
  const { metrics, database, cache } = options;

  app.decorateRequest('graphqlOperation', null);
  app.addHook('onResponse', (request, reply, done) => {
    const cacheResult = reply.getHeader('x-cache');
    metrics.recordRequest({
      method: request.method,
      route: request.routeOptions.url,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
      sqlStatements: request.sqlStatements?.count ?? 0,
      cache: typeof cacheResult === 'string' ? cacheResult : undefined,
      operation: request.graphqlOperation,
    });
    done();
  });

  // Polled every few seconds by orchestrators and Prometheus: completion lines at debug level.
  const probe = { config: { quietCompletion: true } };

  // Liveness, plus the response cache's counters (hits, misses, and store
  // failures that were answered from Postgres instead) and, with read
  // replicas, where reads went and each replica's health and position. Each
  // cluster worker counts on its own: `pid` tells whose counters these are.
  const health = () => ({
    status: 'ok',
    pid: process.pid,
    cache: cache ? { store: cache.kind, ...cache.stats, pendingInvalidations: cache.pendingInvalidations } : { store: 'off' },
    ...(options.replicaStatus ? { replicas: options.replicaStatus() } : {}),
    ...(options.legacySync ? { legacySync: options.legacySync() } : {}),
  });

  const checks: Record<string, Check> = { postgres: postgresCheck(database.pool) };
  const redis = cache?.redisClient;
  if (redis) checks.redis = redisCheck(redis);

  const exposition = cluster.isWorker ? new ClusterMetrics(metrics.registry) : metrics;
  if (exposition instanceof ClusterMetrics) app.addHook('onClose', async () => exposition.close());

  const routes = (target: FastifyInstance, adminListener: boolean) => {
    const granted = (request: FastifyRequest) => options.admin.grant(request.headers, request.ip, adminListener);
    // An address past its wrong tokens: a 429 on every admin route (a token it sends is not even compared).
    const throttled = (request: FastifyRequest, reply: FastifyReply) => {
      const refusal = options.admin.throttledRefusal(request.ip);
      return reply.code(refusal.status).headers(refusal.headers).send({ error: refusal.message });
    };

    target.get('/healthz', probe, async (request, reply) => {
      const grant = await granted(request);
      if (grant === 'throttled') return throttled(request, reply);
      return grant === 'granted' ? health() : { status: 'ok' };
    });

    target.get('/readyz', probe, async (request, reply) => {
      const grant = await granted(request);
      if (grant === 'throttled') return throttled(request, reply);
      const readiness = await checkReadiness(checks, options.readinessTimeoutMs);
      const status = readiness.ready ? 'ready' : 'unavailable';
      // The checks name hosts and carry driver messages: details only.
      return reply.code(readiness.ready ? 200 : 503).send(grant === 'granted'
        ? { status, checks: readiness.checks, ...(options.legacySync ? { legacySync: options.legacySync() } : {}) }
        : { status });
    });

    target.get('/metrics', probe, async (request, reply) => {
      const grant = await granted(request);
      if (grant === 'throttled') return throttled(request, reply);
      if (grant !== 'granted') {
        const refusal = metricsRefusal(grant);
        return reply.code(refusal.status).headers(refusal.headers).send({ error: refusal.message });
      }
      try {
        const text = await exposition.text();
        return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(text);
      } catch (error) {
        request.log.error({ err: error }, 'could not collect metrics');
        return reply.code(503).type('text/plain; charset=utf-8').send(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    });
  };
  routes(app, false);
  return { serveAdmin: (adminApp) => routes(adminApp, true) };
}
