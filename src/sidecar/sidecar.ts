// Sidecar mode (LEGACY_SOURCE_URL; docs/sidecar.md), put together: the legacy
// client, the write pass-through (./pass-through-writes.ts), the sync worker,
// X-Source-Age on read answers, the recently requested ids it verifies first,
// its metrics and its /readyz details.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type pg from 'pg';
import type { CatalogLoaders } from '../catalog/reads/loaders.ts';
import type { CatalogService } from '../catalog/writes/service.ts';
import type { SidecarConfig } from '../config.ts';
import { LegacyClient } from '../legacy/legacy-client.ts';
import { LegacySource } from './legacy-source.ts';
import { PassThroughWrites } from './pass-through-writes.ts';
import { RecentIds } from './recent-ids.ts';
import { RECENT_CHANNEL, type SyncErrorKind, SyncWorker } from './sync-worker.ts';

export const SOURCE_AGE_HEADER = 'x-source-age';

/** What /readyz shows of the sync (details only); readiness never depends on it. */
export interface LegacySyncStatus {
  state: SyncWorker['state'];
  /** Seconds since the sync last completed a successful legacy request (X-Source-Age); null: never. */
  lagSeconds: number | null;
  lastSuccessAt: string | null;
  breaker: string;
  progress: ReturnType<SyncWorker['progress']> & { errors: Record<SyncErrorKind, number> };
}

export interface Sidecar {
  client: LegacyClient;
  /** What the APIs write through: the legacy service first, then the local copy. */
  writes: PassThroughWrites;
  worker: SyncWorker;
  status(): LegacySyncStatus;
  /** Seconds the local copy may be behind the legacy service (X-Source-Age). */
  sourceAgeSeconds(): number;
  /** A GraphQL request's loaders: the products they read count as recently requested. */
  track(request: FastifyRequest, loaders: CatalogLoaders): void;
  close(): Promise<void>;
}

export interface SidecarOptions {
  config: SidecarConfig;
  app: FastifyInstance;
  service: CatalogService;
  pool: pg.Pool;
  databaseUrl: string;
  connectTimeoutMs: number;
  registry: Registry;
}

/** At most this many product ids of one GraphQL answer count as requested (a listing touches many). */
const IDS_PER_REQUEST = 20;
/** Ids per NOTIFY payload (the payload limit is 8,000 bytes). */
const IDS_PER_NOTIFY = 500;
const BREAKER_VALUES = { closed: 0, 'half-open': 1, open: 2 } as const;

export async function startSidecar(options: SidecarOptions): Promise<Sidecar> {
  const { config, app, service, pool } = options;
  const startedAt = Date.now();
  const client = new LegacyClient(config.client);
  const recent = new RecentIds(config.recentIds);
  const writes = new PassThroughWrites(service, new LegacySource(client, recent));
  const worker = new SyncWorker({
    client, service, pool, databaseUrl: options.databaseUrl, connectTimeoutMs: options.connectTimeoutMs,
    intervalMs: Math.round(config.syncIntervalSeconds * 1000), maxRps: client.options.maxRps, maxConcurrency: client.options.maxConcurrency, pageSize: config.pageSize,
    sync: config.sync, recent,
    warn: (message, error) => app.log.warn({ err: error }, message),
    info: (message) => app.log.info(message),
  });
  await worker.start();

  // Ids asked for here while another instance syncs: sent to it (NOTIFY) every half second.
  const outbox = new RecentIds(config.recentIds);
  const requested = (id: number) => (worker.state === 'syncing' ? recent : outbox).add(id);
  const flush = setInterval(() => {
    if (outbox.size === 0) return;
    const ids = outbox.take(outbox.size);
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
      pool.query('SELECT pg_notify($1, $2)', [RECENT_CHANNEL, JSON.stringify(ids.slice(i, i + IDS_PER_NOTIFY))]).catch(() => {});
    }
  }, 500);
  flush.unref();

  const sourceAgeSeconds = () => {
    const last = worker.lastSuccess();
    return Math.max(0, Math.floor((Date.now() - (last ?? startedAt)) / 1000));
  };
  const status = (): LegacySyncStatus => {
    const last = worker.lastSuccess();
    return {
      state: worker.state,
      lagSeconds: last === undefined ? null : Math.max(0, Math.round((Date.now() - last) / 100) / 10),
      lastSuccessAt: last === undefined ? null : new Date(last).toISOString(),
      breaker: client.breakerState,
      progress: { ...worker.progress(), errors: { ...worker.errors } },
    };
  };

  // Read answers say how old the copy may be; REST product routes count as requests for their product.
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0] ?? '';
    if ((request.method === 'GET' && (path === '/products' || path.startsWith('/products/'))) || path === '/graphql') {
      reply.header(SOURCE_AGE_HEADER, String(sourceAgeSeconds()));
    }
    return payload;
  });
  const loadersOf = new WeakMap<FastifyRequest, CatalogLoaders>();
  app.addHook('onResponse', async (request) => {
    const match = /^\/products\/(\d{1,15})(?:\/|$|\?)/.exec(request.url);
    if (match) requested(Number(match[1]));
    const loaders = loadersOf.get(request);
    if (loaders) {
      let n = 0;
      for (const id of loaders.touchedProducts) {
        if (n++ >= IDS_PER_REQUEST) break;
        requested(id);
      }
    }
  });

  // Prometheus.
  const register = [options.registry];
  new Gauge({ name: 'legacy_sync_lag_seconds', help: 'Seconds since the sync last completed a successful legacy request (X-Source-Age)', registers: register,
    collect() { this.set(sourceAgeSeconds()); } });
  new Gauge({ name: 'legacy_sync_products_verified', help: 'Products this instance verified against the legacy service since it started', registers: register,
    collect() { this.set(worker.progress().verified); } });
  new Gauge({ name: 'legacy_sync_applied', help: 'Verifications by outcome since this instance started', labelNames: ['outcome'], registers: register,
    collect() { for (const [outcome, n] of Object.entries(worker.progress().applied)) this.set({ outcome }, n); } });
  new Gauge({ name: 'legacy_sync_queue_size', help: 'Products waiting for priority verification', labelNames: ['queue'], registers: register,
    collect() {
      const { queue } = worker.progress();
      this.set({ queue: 'recent' }, queue.recent + outbox.size);
      this.set({ queue: 'incomplete' }, queue.incomplete);
    } });
  new Gauge({ name: 'legacy_sync_errors', help: 'Sync failures by kind since this instance started', labelNames: ['kind'], registers: register,
    collect() { for (const [kind, n] of Object.entries(worker.errors)) this.set({ kind }, n); } });
  new Gauge({ name: 'legacy_sync_active', help: '1 when this instance runs the sync (holds the advisory lock)', registers: register,
    collect() { this.set(worker.state === 'syncing' ? 1 : 0); } });
  new Gauge({ name: 'legacy_sync_cursor', help: 'The rolling re-verification cursor (a product id)', registers: register,
    collect() { this.set(worker.progress().cursor); } });
  new Gauge({ name: 'legacy_breaker_state', help: 'The legacy client circuit breaker: 0 closed, 1 half-open, 2 open', registers: register,
    collect() { this.set(BREAKER_VALUES[client.breakerState] ?? 0); } });
  new Gauge({ name: 'legacy_requests_sent', help: 'Requests this instance sent to the legacy service, by outcome', labelNames: ['outcome'], registers: register,
    collect() { for (const [outcome, n] of Object.entries(client.stats().outcomes)) this.set({ outcome }, n); } });

  return {
    client,
    writes,
    worker,
    status,
    sourceAgeSeconds,
    track: (request, loaders) => { loadersOf.set(request, loaders); },
    async close() {
      clearInterval(flush);
      await worker.stop();
      client.close();
    },
  };
}
