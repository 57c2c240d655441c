// The catalogue's Prometheus metrics: one registry per server (so tests can
// count exactly), plus the process-wide default metrics (CPU, memory, GC,
// event-loop lag) that prom-client collects once per process.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type pg from 'pg';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { BatchObserver, LoaderName } from '../catalog/reads/loaders.ts';
import type { ExpensiveReads, RefusalReason } from '../catalog/browse/expensive-reads.ts';
import type { CoalescingObserver } from '../db/reads/coalesced-reads.ts';
import type { StatementCounter } from '../db/pool/pool.ts';
import { ANONYMOUS_OPERATION, INVALID_OPERATION, type OperationRecord } from './graphql-operations.ts';
import { Counter, type CounterSeries, Histogram, type HistogramSeries } from './instruments.ts';

/** Seconds; from cache hits (well under a millisecond) to requests that should have timed out. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Keys per batch; loaders cap a batch at 1,000 (MAX_BATCH_SIZE). */
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];
/** Requests per keyed read statement: 1 when idle, tens under load (coalesced-reads.ts). */
const COALESCED_BUCKETS = [1, 2, 3, 5, 10, 20, 50, 100];
/** Statements per request: 0 for a cache hit, 1 for a product page, a handful for nested queries. */
const STATEMENT_BUCKETS = [0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 64];

/** The route label of requests that matched no route (404s): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The operation label once the distinct names seen reach the limit. */
export const OTHER_OPERATION = 'other';

let processRegistry: Registry | undefined;
/** Default process metrics, collected once per process however many servers it builds. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Values found by up to three label values through nested maps: no string
 * is built on a lookup, so the hot path allocates nothing once a combination
 * has been seen.
 */
class SeriesTree<T> {
  private readonly root = new Map<string | number, Map<string | number, Map<string | number, T>>>();
  private readonly create: (a: string | number, b: string | number, c: string | number) => T;
  constructor(create: (a: string | number, b: string | number, c: string | number) => T) {
    this.create = create;
  }
  at(a: string | number, b: string | number = '', c: string | number = ''): T {
    let level1 = this.root.get(a);
    if (!level1) this.root.set(a, level1 = new Map());
    let level2 = level1.get(b);
    if (!level2) level1.set(b, level2 = new Map());
    let found = level2.get(c);
    if (found === undefined) level2.set(c, found = this.create(a, b, c));
    return found;
  }
}

/** Admits the first `limit` distinct names; later ones share one label, so a client cannot explode the series count. */
class BoundedNames {
  private readonly admitted = new Set<string>();
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  label(name: string): string {
    if (this.admitted.has(name)) return name;
    if (this.admitted.size >= this.limit) return OTHER_OPERATION;
    this.admitted.add(name);
    return name;
  }
}

interface RequestSeries {
  requests: CounterSeries;
  duration: HistogramSeries;
}

interface OperationSeries extends RequestSeries {
  errors: CounterSeries;
}

/** One finished HTTP request, as the metrics need it. */
export interface FinishedRequest {
  method: string;
  /** The route pattern (`/products/:product_id`), or undefined when no route matched. */
  route: string | undefined;
  status: number;
  seconds: number;
  sqlStatements: number;
  /** The x-cache header: hit, miss or shared; undefined when the cache was not asked. */
  cache: string | undefined;
  /** Set for GraphQL requests. */
  operation: OperationRecord | null;
}

export interface MetricSources {
  /** Postgres pools by name (pg_pool_* gauges). */
  pools: Record<string, pg.Pool>;
  statements: StatementCounter;
  cache: ResponseCache | undefined;
  /** Distinct GraphQL operation names labelled before the rest become "other". */
  maxOperationNames: number;
  /** The limit on expensive reads (expensive_reads_* series). */
  expensiveReads?: Pick<ExpensiveReads, 'load' | 'refused'>;
  /** Connections refused before node:http took them (http_connections_refused_total). */
  connectionsRefused?: Readonly<Record<string, number>>;
}

export class CatalogueMetrics {
  /** Everything /metrics shows: this server's metrics and the process's. */
  readonly registry: Registry;
  private readonly http: SeriesTree<RequestSeries>;
  private readonly statementsPerRequest: SeriesTree<HistogramSeries>;
  private readonly operations: SeriesTree<OperationSeries>;
  private readonly cacheLookups: SeriesTree<CounterSeries>;
  private readonly batchSizes: SeriesTree<HistogramSeries>;
  private readonly coalescedReads: SeriesTree<HistogramSeries>;
  private readonly operationNames: BoundedNames;

  constructor(sources: MetricSources) {
    const own = new Registry();
    const registers = [own];
    const httpRequests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers });
    const httpDuration = new Histogram({ name: 'http_request_duration_seconds', help: 'Time from receiving an HTTP request to the end of its response', labelNames: ['method', 'route', 'status'], buckets: DURATION_BUCKETS, registers });
    this.http = new SeriesTree((route, method, status) => ({
      requests: httpRequests.series(String(method), String(route), String(status)),
      duration: httpDuration.series(String(method), String(route), String(status)),
    }));

    const statementsHistogram = new Histogram({ name: 'sql_statements_per_request', help: 'SQL statements one HTTP request sent to Postgres or shared with concurrent requests, by route pattern', labelNames: ['route'], buckets: STATEMENT_BUCKETS, registers });
    this.statementsPerRequest = new SeriesTree((route) => statementsHistogram.series(String(route)));
    const statementsTotal = new Counter({
      name: 'sql_statements_total', help: 'SQL statements sent to Postgres by this process (requests, start-up and background work)', registers,
      collect: () => { statementsTotal.series().value = sources.statements.total; },
    });

    const operations = new Counter({ name: 'graphql_operations_total', help: `GraphQL operations, by operation name ("${ANONYMOUS_OPERATION}" if unnamed, "${INVALID_OPERATION}" if none could run, "${OTHER_OPERATION}" past the name limit) and type`, labelNames: ['operation', 'type'], registers });
    const operationErrors = new Counter({ name: 'graphql_operation_errors_total', help: 'GraphQL operations whose response carried errors', labelNames: ['operation', 'type'], registers });
    const operationDuration = new Histogram({ name: 'graphql_operation_duration_seconds', help: 'Time from receiving a GraphQL request to the end of its response', labelNames: ['operation', 'type'], buckets: DURATION_BUCKETS, registers });
    this.operations = new SeriesTree((name, type) => ({
      requests: operations.series(String(name), String(type)),
      errors: operationErrors.series(String(name), String(type)),
      duration: operationDuration.series(String(name), String(type)),
    }));
    this.operationNames = new BoundedNames(sources.maxOperationNames);

    const batchSize = new Histogram({ name: 'dataloader_batch_size', help: 'Keys per DataLoader batch (one keyed read each, which may share its statement with other requests), by loader', labelNames: ['loader'], buckets: BATCH_SIZE_BUCKETS, registers });
    this.batchSizes = new SeriesTree((loader) => batchSize.series(String(loader)));
    const coalesced = new Histogram({ name: 'sql_coalesced_reads', help: 'Requests whose keyed reads one SQL statement carried (1: not shared), by statement', labelNames: ['statement'], buckets: COALESCED_BUCKETS, registers });
    this.coalescedReads = new SeriesTree((statement) => coalesced.series(String(statement)));

    const lookups = new Counter({ name: 'response_cache_requests_total', help: 'Requests the response cache answered, by kind (rest, graphql) and result (hit, miss, shared: joined an identical running request)', labelNames: ['kind', 'result'], registers });
    this.cacheLookups = new SeriesTree((kind, result) => lookups.series(String(kind), String(result)));
    const cacheErrors = new Counter({
      name: 'response_cache_errors_total', help: 'Response cache store operations that failed (Redis down or slow) and were answered from Postgres', registers,
      collect: () => { cacheErrors.series().value = sources.cache?.stats.errors ?? 0; },
    });

    const pools = Object.entries(sources.pools);
    const poolGauge = (name: string, help: string, read: (pool: pg.Pool) => number) => new Gauge({
      name, help, labelNames: ['pool'], registers,
      collect() {
        for (const [label, pool] of pools) this.set({ pool: label }, read(pool));
      },
    });
    poolGauge('pg_pool_connections', 'Open connections in the Postgres pool', (pool) => pool.totalCount);
    poolGauge('pg_pool_idle_connections', 'Open connections not in use', (pool) => pool.idleCount);
    poolGauge('pg_pool_waiting_requests', 'Queries waiting for a connection (the pool is exhausted when this stays above 0)', (pool) => pool.waitingCount);

    const expensive = sources.expensiveReads;
    if (expensive) {
      new Gauge({ name: 'expensive_reads_running', help: 'Searches, facet counts and browse pages running now (at most EXPENSIVE_READS_CONCURRENCY)', registers,
        collect() { this.set(expensive.load.running); } });
      new Gauge({ name: 'expensive_reads_waiting', help: 'Searches, facet counts and browse pages waiting for their turn (at most EXPENSIVE_READS_QUEUE)', registers,
        collect() { this.set(expensive.load.waiting); } });
      const refused = new Counter({
        name: 'expensive_reads_refused_total', help: 'Expensive reads refused with 429, by reason (queue full, waited too long)', labelNames: ['reason'], registers,
        collect: () => { for (const [reason, count] of Object.entries(expensive.refused)) refused.series(reason as RefusalReason).value = count; },
      });
    }

    const connections = sources.connectionsRefused;
    if (connections) {
      const refused = new Counter({
        name: 'http_connections_refused_total', help: 'Connections refused as they opened, by why: process (HTTP_MAX_CONNECTIONS), address (HTTP_MAX_CONNECTIONS_PER_ADDRESS), rate (HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND); an address refused and told is then dropped uncounted until the next second', labelNames: ['reason'], registers,
        collect: () => { for (const [reason, count] of Object.entries(connections)) refused.series(reason).value = count; },
      });
    }

    this.registry = Registry.merge([processMetrics(), own]);
  }

  /** Counts a finished request: HTTP, GraphQL and cache series. Allocates nothing for a label combination seen before. */
  recordRequest(finished: FinishedRequest): void {
    const route = finished.route ?? UNMATCHED_ROUTE;
    const http = this.http.at(route, finished.method, finished.status);
    http.requests.inc();
    http.duration.observe(finished.seconds);
    this.statementsPerRequest.at(route).observe(finished.sqlStatements);
    const operation = finished.operation;
    if (operation) {
      const name = operation.resolved ? this.operationNames.label(operation.name ?? ANONYMOUS_OPERATION) : INVALID_OPERATION;
      const series = this.operations.at(name, operation.resolved ? operation.type ?? INVALID_OPERATION : INVALID_OPERATION);
      series.requests.inc();
      series.duration.observe(finished.seconds);
      if (operation.errors > 0) series.errors.inc();
    }
    if (finished.cache !== undefined) this.cacheLookups.at(operation ? 'graphql' : 'rest', finished.cache).inc();
  }

  /** Reports DataLoader batch sizes into dataloader_batch_size. */
  readonly observeBatch: BatchObserver = (loader: LoaderName, size: number) => {
    this.batchSizes.at(loader).observe(size);
  };

  /** Reports how many requests each keyed read statement served into sql_coalesced_reads. */
  readonly observeCoalescing: CoalescingObserver = (statement: string, requests: number) => {
    this.coalescedReads.at(statement).observe(requests);
  };

  /** The Prometheus text exposition of this process's metrics. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
