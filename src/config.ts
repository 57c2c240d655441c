// The one place that reads the environment. Everything else receives a Config.
// Every bad value is reported at once, with the variable name and what was expected.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LEGACY_CLIENT_DEFAULTS, type LegacyClientOptions, parseHeaderLine, resolveLegacyClientOptions } from './legacy/options.ts';
import { SAMPLERS, type TracesConfig } from './tracing/sdk.ts';

export type { TracesConfig };

/**
 * When the response cache looks a response up and stores it
 * (src/cache/response-cache.ts): every request looked up and every miss
 * stored (first-miss); every request looked up, a miss stored on its key's
 * second miss in the process (second-miss); or a cheap read
 * (src/graphql/cost.ts) neither looked up nor stored before its key's second
 * sighting in the process, answered as with the cache off, and every other
 * read as under first-miss (doorkeeper).
 */
export const CACHE_ADMISSIONS = ['first-miss', 'second-miss', 'doorkeeper'] as const;
export type CacheAdmission = (typeof CACHE_ADMISSIONS)[number];

/** Abuse limits on GraphQL operations (docs/graphql.md "GraphQL limits"); a request over any of them is a 400 naming it. */
export interface GraphQLLimits {
  /** Deepest field nesting (a leaf field counts as a level, as in graphql-armor). */
  maxDepth: number;
  /** Aliases in one operation, fragments expanded. */
  maxAliases: number;
  /** Lexical tokens in the document; enforced while parsing. */
  maxTokens: number;
  /** Directive uses in one operation, fragments expanded. */
  maxDirectives: number;
  /** Estimated cost of the operation (src/graphql/cost.ts: list sizes multiply). */
  maxCost: number;
  /** Entries in any list argument, including lists inside input objects. */
  maxListLength: number;
}

/** Which browser origins may call the API (docs/caching.md "CORS"). */
export interface CorsConfig {
  /** `*`: any origin (never with credentials); a list: exactly these origins; false: no CORS headers. */
  origins: '*' | string[] | false;
  /** Access-Control-Allow-Credentials: only with a list of origins. */
  credentials: boolean;
  /** How long a browser may reuse a preflight answer. */
  maxAgeSeconds: number;
}

/** HTTP caching of read answers by browsers and CDNs (docs/caching.md "HTTP caching"). */
export interface HttpCacheConfig {
  /** max-age for browsers (0: `no-cache`, revalidate every time with the ETag); the schema's hints cap it. */
  maxAgeSeconds: number;
  /** s-maxage for shared caches (CDNs); the schema's hints cap it too. */
  sharedMaxAgeSeconds: number;
  /** Called after every write with the tags it changed (CDN purge); undefined: none. */
  purgeUrl: string | undefined;
  /** Sent as `Authorization: Bearer …` to the purge URL. */
  purgeToken: string | undefined;
}

/** Live subscriptions (docs/subscriptions.md): graphql-ws on the WebSocket upgrade of /graphql, GraphQL over SSE at /graphql/stream. */
export interface LiveConfig {
  /** Serve them; they hear writes through the change feed's LISTEN connection, opened for them if the cache does not need it. */
  enabled: boolean;
  /** Subscriptions one WebSocket connection may hold at once (an SSE stream is one). */
  maxSubscriptionsPerConnection: number;
  /** Ids one subscription may watch. */
  maxIds: number;
  /** A subscriber whose pending events wait this long without its connection taking any is disconnected. */
  slowConsumerMs: number;
  /** Between WebSocket pings; a connection that has not answered the last ping by the next is closed. */
  pingMs: number;
  /** How long a new WebSocket connection may take to send connection_init (graphql-ws closes it with 4408 after). */
  initTimeoutMs: number;
  /** What one process, one address, one key may hold (src/graphql/subscriptions/capacity.ts). */
  caps: LiveCaps;
}

/** Live subscriptions' caps, so that no one client can take a process (docs/subscriptions.md "Limits and access"). */
export interface LiveCaps {
  /** WebSockets and SSE streams one process holds (a share of HTTP_MAX_CONNECTIONS by default: the rest is for requests). */
  connections: number;
  /** The same, from one client address (TRUST_PROXY decides which), pending WebSockets included. */
  connectionsPerAddress: number;
  /** The same, with one API key. */
  connectionsPerKey: number;
  /** WebSockets from one address that have not yet sent connection_init. */
  pendingPerAddress: number;
  /** Subscriptions one process holds. */
  subscriptions: number;
  /** Subscriptions of one client: its API key, or its address without one. */
  subscriptionsPerClient: number;
  /** Product ids watched in one process, summed over subscriptions (what the hub keeps grows with them). */
  watches: number;
  /** The same, for one client. */
  watchesPerClient: number;
}

/** By default live connections may take this share of HTTP_MAX_CONNECTIONS; the rest stays for requests. */
export const LIVE_SHARE_OF_CONNECTIONS = 0.8;

/** Sidecar mode (docs/sidecar.md): the legacy service is the source of truth, this API its fast copy. */
export interface SidecarConfig {
  /** The legacy client's settings (src/legacy/options.ts): URL, header, budget, timeouts, retries, breaker. */
  client: LegacyClientOptions & { baseUrl: string };
  /** Seconds between the starts of two sync rounds. */
  syncIntervalSeconds: number;
  /** Whether this instance competes for the sync (one instance per deployment syncs: a Postgres advisory lock). */
  sync: boolean;
  /** `count` of the listing pages the sync probes for new products. */
  pageSize: number;
  /** Recently requested product ids remembered for priority re-verification (oldest forgotten first). */
  recentIds: number;
}

export interface SentinelAddress {
  host: string;
  port: number;
}

/** Where Redis is: one server by URL, or the master a group of Sentinels names. */
export type RedisTarget =
  | { url: string }
  | {
    sentinels: SentinelAddress[];
    /** The master's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
    masterName: string;
    /** AUTH of the master and replicas. */
    password?: string;
    /** AUTH of the Sentinels themselves. */
    sentinelPassword?: string;
  };

export interface Config {
  /** LEGACY_SOURCE_URL set: sidecar mode; undefined: the API is the source of truth (the default). */
  sidecar: SidecarConfig | undefined;
  /** OpenTelemetry traces (the OTEL_* variables); undefined: off, no SDK loaded (the default). */
  traces: TracesConfig | undefined;
  live: LiveConfig;
  cors: CorsConfig;
  httpCache: HttpCacheConfig;
  /** PGOPTIONS: the operator's Postgres session options, kept after the API's own (session-settings.ts). */
  pgOptions: string | undefined;
  /** Set by the primary for its cluster workers (CATALOGUE_WORKER_DATABASE_URL): the database it opened. */
  workerDatabaseUrl: string | undefined;
  /** Postgres to use; undefined means "start the embedded server". */
  databaseUrl: string | undefined;
  /**
   * `transaction`: DATABASE_URL (and the replicas) go through a pooler in
   * transaction mode (PgBouncer before 1.21): statements are sent unnamed and
   * no session settings in the startup message; what needs a session goes to
   * databaseDirectUrl.
   */
  databasePooler: 'none' | 'transaction';
  /**
   * The primary without a transaction pooler, for what needs a session of its
   * own: migrations (advisory lock), the change feed (LISTEN), sidecar mode's
   * sync lock. Undefined: DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  /**
   * Streaming replicas of that server: catalogue reads are spread over them
   * (writes, and reads a replica has not replayed yet, go to the primary).
   */
  databaseReplicaUrls: string[];
  /** How often each replica's replay position and health are polled. */
  databaseReplicaCheckMs: number;
  /** A replica that does not accept a connection within this long counts as down. */
  databaseReplicaConnectTimeoutMs: number;
  /** A replica that does not answer a statement within this long counts as down. */
  databaseReplicaQueryTimeoutMs: number;
  /** How often listing page anchors are rebuilt for products created or deleted elsewhere (src/catalog/reads/listing-anchors.ts). */
  listingRefreshMs: number;
  /** Root of local state (embedded Postgres data, sample CSVs). Git-ignored. */
  dataDir: string;
  embeddedPostgresPort: number;
  /**
   * shared_buffers of the embedded Postgres. 2GB holds the full-scale
   * catalogue's hot tables (the styles documents, products and their keys);
   * Linux gives the memory only as pages are used.
   */
  embeddedPostgresSharedBuffers: string;
  /** Scale of the sample catalogue loaded into an empty embedded database. */
  sampleScale: number;
  host: string;
  port: number;
  nodeEnv: 'development' | 'production' | 'test';
  /** HTTP server processes sharing the port (1 = serve in the main process). */
  workers: number;
  /**
   * Redis for the shared response cache, rate limits, persisted queries and
   * replicas' write positions: one server (REDIS_URL) or the master a group of
   * Sentinels names (REDIS_SENTINELS); undefined: all of them in process.
   */
  redis: RedisTarget | undefined;
  /** Response cache for read routes. */
  cache: boolean;
  cacheTtlSeconds: number;
  cachePrefix: string;
  /**
   * Bytes of the local tier each instance keeps in front of Redis (entries it
   * served from Redis, answered again without a round trip); 0: none. Only
   * with Redis and the change feed, which keeps it as fresh as Redis.
   */
  cacheLocalBytes: number;
  /** When a response is looked up and stored (CACHE_ADMISSIONS). */
  cacheAdmission: CacheAdmission;
  /** Run only the operations of the codegen persisted-documents manifest. */
  trustedDocuments: boolean;
  /** How long persisted query hashes are kept (APQ). */
  apqTtlSeconds: number;
  /** Longest a Redis command may take before the request goes to Postgres instead. */
  redisTimeoutMs: number;
  /**
   * Listen for every instance's committed writes through Postgres (LISTEN
   * catalogue_changes): cached responses they changed are never served after
   * the notification is heard, whether or not Redis took the invalidation.
   * On by default whenever something else may write what this process
   * serves: with a shared cache (REDIS_URL), several worker processes, or
   * any cache (a response cache, CDN_PURGE_URL): a load replaces the catalogue.
   */
  changeFeed: boolean;
  /** Where the change feed LISTENs: the primary, in session mode; undefined: the API's database. */
  changeFeedDatabaseUrl: string | undefined;
  /**
   * No other API process writes what this one caches (one worker, no Redis,
   * CHANGE_FEED left to auto): its feed hears only loads and SQL by hand, so
   * its cache serves on while the feed reconnects (a Postgres outage).
   */
  soleWriter: boolean;
  /** Connections in this process's Postgres pool. */
  databasePoolSize: number;
  /**
   * The limit on expensive reads (searches, facet counts, browse pages:
   * src/catalog/browse/expensive-reads.ts), per process: statements at once (0: no
   * limit), statements waiting at most, and the longest wait; past it, 429.
   */
  expensiveReads: { concurrency: number; queue: number; maxWaitMs: number; busyPercent: number };
  /** Longest opening one Postgres connection may take (TCP, TLS, authentication) before it counts as unreachable. */
  databaseConnectTimeoutMs: number;
  /** Longest a request waits for a pooled connection (all busy, or one being opened) before it gets a 503. */
  databasePoolQueueTimeoutMs: number;
  /** Postgres statement_timeout of every pooled connection (lock waits included); the driver gives up a little later. */
  databaseStatementTimeoutMs: number;
  /**
   * Postgres lock_timeout of every pooled connection: the longest a write
   * waits for a row another write holds; then it is given up (503 + Retry-After).
   */
  databaseLockTimeoutMs: number;
  /** REST PUT and DELETE need If-Match (428 without it): no unconditional overwrite. */
  writesRequireIfMatch: boolean;
  /** How long an Idempotency-Key of a create is remembered. */
  idempotencyKeyTtlSeconds: number;
  /** Longest SIGTERM/SIGINT waits for in-flight requests before the process exits anyway (with code 1). */
  shutdownTimeoutMs: number;
  /**
   * After SIGTERM/SIGINT, how long kept-alive connections stay open: a request
   * already on its way on one is answered (503, Connection: close) instead of
   * meeting a closed socket. Ends early once every connection has gone.
   */
  shutdownIdleGraceMs: number;
  /** Longest a request's headers may take to arrive, from its first byte; also how long a new connection may stay silent. Then 408 and close. */
  httpHeadersTimeoutMs: number;
  /** Longest a whole request (headers and body) may take to arrive; then 408 and close. */
  httpRequestTimeoutMs: number;
  /** How long an idle kept-alive connection stays open between requests (above nginx's upstream keepalive_timeout). */
  httpKeepAliveTimeoutMs: number;
  /** Connections one server process holds at most; a new one beyond it is closed at once. */
  httpMaxConnections: number;
  /** Connections one client address holds at most (not a proxy TRUST_PROXY trusts: it caps its clients itself). */
  httpMaxConnectionsPerAddress: number;
  httpNewConnectionsPerAddressPerSecond: number;
  /** Largest `count`/`first` a client may ask for in one page. */
  maxPageSize: number;
  /** `campus` value of legacy REST product objects. */
  legacyCampus: string;
  /** Legacy REST: styles without photos/skus get the live service's null placeholders (true) or [] and {} (false). */
  legacyEmptyPlaceholders: boolean;
  /** Execute GraphQL with graphql-jit (compiled queries) instead of graphql-js. */
  graphqlJit: boolean;
  /**
   * Serve the schema as an Apollo Federation 2 subgraph (`_entities`,
   * `_service`, @key on Product and Style) for a router to compose. Off by
   * default: `_service { sdl }` gives the whole schema to anyone, introspection off or not.
   */
  federation: boolean;
  graphqlLimits: GraphQLLimits;
  /** Answer introspection (__schema, __type): the IDE's docs and completion need it. Default: development only. */
  graphqlIntrospection: boolean;
  /**
   * A browser opening /graphql gets GraphiQL (src/graphql/ide.ts); off, a
   * landing page saying how to send a query and how to turn the IDE on.
   * Default: on where introspection is.
   */
  graphqlIde: boolean;
  /** Keep graphql-js's "Did you mean ...?" hints in error messages (they reveal the schema). Default: development only. */
  graphqlFieldSuggestions: boolean;
  /** Show internal error details to clients (never in production). */
  exposeErrors: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Longest /readyz waits for Postgres (and Redis) before reporting it unavailable. */
  readinessTimeoutMs: number;
  /**
   * Who may see /metrics and the details of /readyz and /healthz
   * (src/observability/admin-access.ts): holders of `token`
   * (`Authorization: Bearer <token>`), and callers of the admin listener
   * (`port` on `host`) when there is one. Without either, development and
   * test show them to anyone, production to no one.
   */
  admin: {
    token: string | undefined;
    /** A separate listener serving only /healthz, /readyz and /metrics; undefined: none. */
    port: number | undefined;
    host: string;
    /** Wrong admin tokens one address may present a minute (then 429, the token not compared), per process. */
    authFailuresPerMinute: number;
  };
  /** Distinct GraphQL operation names given their own metric labels; later names are counted as "other". */
  metricsMaxOperationNames: number;
  /** Whether reads (REST GETs, GraphQL queries) need an API key too; writes always do. */
  apiKeysForReads: 'required' | 'optional';
  /**
   * How long a looked-up API key (or an unknown one) is remembered in process:
   * a revocation takes effect within this many seconds.
   */
  apiKeyCacheSeconds: number;
  /**
   * How long an unknown or revoked API key is remembered (the negative cache),
   * and how many such keys at most (oldest forgotten first).
   */
  apiKeyNegativeCacheSeconds: number;
  apiKeyNegativeCacheSize: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify
   * `trustProxy`): false for none, true for all, N for the N nearest hops, or
   * the proxies' addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  /** Rate limits on the API routes (off for load benchmarks). */
  rateLimit: boolean;
  /**
   * Budget per client address of requests without an API key, per minute (REST: 1 a request, GraphQL: the operation's cost).
   * The default admits twice the legacy throughput target (1,000 requests/s) from one address; a public deployment sets 600.
   */
  rateLimitAnonymousPerMinute: number;
  /** Budget per API key per minute, unless the key has its own (keys create --rate). */
  rateLimitKeyPerMinute: number;
  /** Per client address: lookups of presented API keys this instance does not know as valid. */
  rateLimitKeyChecksPerMinute: number;
  /**
   * Query-cost points per rate-limit unit: a GraphQL operation spends
   * ceil(cost / this) units (at least 1), a REST request 1. With the default,
   * a product page with related cards (cost 577) spends 6 units, the costliest allowed query 50.
   */
  rateLimitGraphqlCostUnit: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

/** The variable the primary sets for its cluster workers: the database URL it opened (src/main.ts). */
export const WORKER_DATABASE_URL = 'CATALOGUE_WORKER_DATABASE_URL';

class Reader {
  readonly problems: string[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  /** Reports `value` (called `label`) unless it is a URL with one of `protocols`; never echoes credentials. */
  private checkUrl(label: string, value: string, protocols: string[]): void {
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) {
        this.problems.push(`${label} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${url.protocol}//...")`);
      }
    } catch {
      this.problems.push(`${label} is not a valid URL`);
    }
  }

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    if (value !== undefined) this.checkUrl(name, value, protocols);
    return value;
  }

  /** Comma-separated URLs; a bad entry is reported by its position (its text may hold a password). */
  urlList(name: string, protocols: string[]): string[] {
    const value = this.raw(name);
    if (value === undefined) return [];
    const entries = value.split(',').map((entry) => entry.trim());
    entries.forEach((entry, index) => {
      const label = `${name} entry ${index + 1} of ${entries.length}`;
      if (entry === '') this.problems.push(`${label} is empty (expected comma-separated URLs)`);
      else this.checkUrl(label, entry, protocols);
    });
    return entries;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  number(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  /** A secret: never echoed in a problem, only its length. */
  secret(name: string, minLength: number): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (value.length < minLength || !/^[\x21-\x7e]+$/.test(value)) {
      this.problems.push(`${name} must be at least ${minLength} visible ASCII characters without spaces (got ${value.length} characters${/^[\x21-\x7e]+$/.test(value) ? '' : ', some of them not allowed'})`);
      return undefined;
    }
    return value;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    return this.raw(name) === undefined ? undefined : this.integer(name, min, min, max);
  }

  /** Whether the variable is set (to something other than blanks). */
  has(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** A configuration problem found by comparing variables. */
  problem(message: string): void {
    this.problems.push(message);
  }

  /** A Postgres memory setting: digits and kB, MB or GB. */
  memorySize(name: string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+(kB|MB|GB)$/.test(value)) {
      this.problems.push(`${name} must be a size like 512MB or 2GB (got "${value}")`);
      return fallback;
    }
    return value;
  }

  /** Comma-separated host:port pairs (IPv6 hosts in brackets); a bad entry is reported by its position and text. */
  hostPorts(name: string): SentinelAddress[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const entries = value.split(',').map((entry) => entry.trim());
    const addresses: SentinelAddress[] = [];
    entries.forEach((entry, index) => {
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) {
        this.problems.push(`${name} entry ${index + 1} of ${entries.length} must be host:port, e.g. redis-sentinel-0:26379 or [::1]:26379 (got "${entry}")`);
        return;
      }
      addresses.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
    });
    return addresses;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  /** `*`, `off`, or comma-separated origins (scheme://host[:port], as browsers send them in Origin). */
  origins(name: string, fallback: '*' | false): '*' | string[] | false {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (value === '*') return '*';
    if (value === 'off') return false;
    const entries = value.split(',').map((entry) => entry.trim());
    const bad = entries.filter((entry) => {
      try {
        const url = new URL(entry);
        return !['http:', 'https:'].includes(url.protocol) || url.origin !== entry;
      } catch {
        return true;
      }
    });
    if (bad.length > 0) {
      this.problems.push(`${name} must be *, off, or comma-separated origins such as https://shop.example.com or http://localhost:3000 (scheme, host and port only, no path or trailing slash); not an origin: ${bad.map((entry) => JSON.stringify(entry)).join(', ')}`);
      return fallback;
    }
    return entries;
  }

  /** `off`/`on`, a hop count, or a comma-separated list of proxy addresses and CIDR ranges. */
  proxyTrust(name: string): boolean | number | string[] {
    const value = this.raw(name);
    if (value === undefined || value === 'off') return false;
    if (value === 'on') return true;
    if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 100) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    const isAddressOrRange = (entry: string) => {
      const [address = '', bits, ...rest] = entry.split('/');
      const version = net.isIP(address);
      if (version === 0 || rest.length > 0) return false;
      return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
    };
    if (entries.every(isAddressOrRange)) return entries;
    this.problems.push(`${name} must be off, on, a number of proxy hops from 1 to 100, or a comma-separated list of proxy addresses or CIDR ranges (got "${value}")`);
    return false;
  }
}

/** Every setting as its variable says, or its default (problems collected by `read`). */
function readSettings(read: Reader): Config {
  const nodeEnv = read.oneOf('NODE_ENV', 'development', ['development', 'production', 'test'] as const);
  const developmentOnly = nodeEnv === 'development' ? 'on' : 'off';
  const introspection = read.oneOf('GRAPHQL_INTROSPECTION', developmentOnly, ['on', 'off'] as const);
  return {
    sidecar: undefined,
    traces: undefined,
    pgOptions: read.string('PGOPTIONS', '') || undefined,
    workerDatabaseUrl: read.optionalUrl(WORKER_DATABASE_URL, ['postgres:', 'postgresql:']),
    cors: {
      origins: read.origins('CORS_ORIGINS', '*'),
      credentials: read.oneOf('CORS_CREDENTIALS', 'off', ['on', 'off'] as const) === 'on',
      maxAgeSeconds: read.integer('CORS_MAX_AGE_SECONDS', 600, 0, 86_400),
    },
    httpCache: {
      maxAgeSeconds: read.integer('HTTP_CACHE_MAX_AGE_SECONDS', 0, 0, 31_536_000),
      sharedMaxAgeSeconds: read.integer('HTTP_CACHE_SHARED_MAX_AGE_SECONDS', 0, 0, 31_536_000),
      purgeUrl: read.optionalUrl('CDN_PURGE_URL', ['http:', 'https:']),
      purgeToken: read.secret('CDN_PURGE_TOKEN', 8),
    },
    databaseUrl: read.optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePooler: read.oneOf('DATABASE_POOLER', 'none', ['none', 'transaction'] as const),
    databaseDirectUrl: read.optionalUrl('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']),
    databaseReplicaUrls: read.urlList('DATABASE_REPLICA_URLS', ['postgres:', 'postgresql:']),
    databaseReplicaCheckMs: read.integer('DATABASE_REPLICA_CHECK_MS', 1000, 10, 60_000),
    databaseReplicaConnectTimeoutMs: read.integer('DATABASE_REPLICA_CONNECT_TIMEOUT_MS', 1_000, 10, 60_000),
    databaseReplicaQueryTimeoutMs: read.integer('DATABASE_REPLICA_QUERY_TIMEOUT_MS', 5_000, 10, 3_600_000),
    listingRefreshMs: read.integer('LISTING_REFRESH_MS', 30_000, 100, 3_600_000),
    dataDir: path.resolve(read.string('DATA_DIR', '.data')),
    embeddedPostgresPort: read.integer('EMBEDDED_PG_PORT', 54329, 1024, 65535),
    embeddedPostgresSharedBuffers: read.memorySize('EMBEDDED_PG_SHARED_BUFFERS', '2GB'),
    sampleScale: read.number('SAMPLE_SCALE', 0.01, 0.00001, 1),
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', 4000, 0, 65535),
    nodeEnv,
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error', 'silent'] as const),
    workers: read.integer('WORKERS', 1, 1, 64),
    redis: readRedis(read),
    cache: read.oneOf('CACHE', 'on', ['on', 'off'] as const) === 'on',
    cacheTtlSeconds: read.integer('CACHE_TTL_SECONDS', 300, 1, 7 * 24 * 3600),
    cachePrefix: read.string('CACHE_PREFIX', 'catalogue:'),
    cacheLocalBytes: read.integer('CACHE_LOCAL_MB', 64, 0, 65_536) * 1024 * 1024,
    cacheAdmission: 'first-miss',
    redisTimeoutMs: read.integer('REDIS_TIMEOUT_MS', 100, 5, 10_000),
    changeFeed: false,
    changeFeedDatabaseUrl: read.optionalUrl('CHANGE_FEED_DATABASE_URL', ['postgres:', 'postgresql:']),
    soleWriter: false,
    trustedDocuments: read.oneOf('TRUSTED_DOCUMENTS', 'off', ['on', 'off'] as const) === 'on',
    apqTtlSeconds: read.integer('APQ_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 500),
    expensiveReads: {
      // Half the cores (at least one): the other half stays for keyed reads and Node itself.
      concurrency: read.integer('EXPENSIVE_READS_CONCURRENCY', Math.max(1, Math.floor(os.availableParallelism() / 2)), 0, 1_000),
      queue: read.integer('EXPENSIVE_READS_QUEUE', 32, 0, 100_000),
      maxWaitMs: read.integer('EXPENSIVE_READS_MAX_WAIT_MS', 1_000, 1, 60_000),
      // Half the time: the storm's share of Postgres halves, and with it what a product page beside it waits (docs/browse.md).
      busyPercent: read.integer('EXPENSIVE_READS_BUSY_PERCENT', 33, 1, 100),
    },
    databaseConnectTimeoutMs: read.integer('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    databasePoolQueueTimeoutMs: read.integer('DATABASE_POOL_QUEUE_TIMEOUT_MS', 2_000, 10, 60_000),
    databaseStatementTimeoutMs: read.integer('DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 10, 3_600_000),
    databaseLockTimeoutMs: read.integer('DATABASE_LOCK_TIMEOUT_MS', 2_000, 10, 600_000),
    writesRequireIfMatch: read.oneOf('WRITES_REQUIRE_IF_MATCH', 'off', ['on', 'off'] as const) === 'on',
    idempotencyKeyTtlSeconds: read.integer('IDEMPOTENCY_KEY_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownIdleGraceMs: 0,
    httpHeadersTimeoutMs: read.integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    httpRequestTimeoutMs: read.integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    httpKeepAliveTimeoutMs: read.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000),
    httpMaxConnections: read.integer('HTTP_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    httpMaxConnectionsPerAddress: read.integer('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 1_000, 1, 1_000_000),
    httpNewConnectionsPerAddressPerSecond: read.integer('HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND', 200, 1, 1_000_000),
    maxPageSize: read.integer('MAX_PAGE_SIZE', 100, 1, 10_000),
    legacyCampus: read.string('LEGACY_CAMPUS', 'hr-rfp'),
    legacyEmptyPlaceholders: read.oneOf('LEGACY_EMPTY_PLACEHOLDERS', 'on', ['on', 'off'] as const) === 'on',
    graphqlJit: read.oneOf('GRAPHQL_JIT', 'on', ['on', 'off'] as const) === 'on',
    federation: read.oneOf('FEDERATION', 'off', ['on', 'off'] as const) === 'on',
    readinessTimeoutMs: read.integer('READINESS_TIMEOUT_MS', 1000, 10, 60_000),
    admin: {
      token: read.secret('ADMIN_TOKEN', 16),
      port: read.optionalInteger('ADMIN_PORT', 0, 65535),
      host: read.string('ADMIN_HOST', '127.0.0.1'),
      authFailuresPerMinute: read.integer('ADMIN_AUTH_FAILURES_PER_MINUTE', 60, 1, 1_000_000),
    },
    metricsMaxOperationNames: read.integer('METRICS_MAX_OPERATION_NAMES', 100, 1, 10_000),
    // Defaults at least as strict as graphql-armor's (depth 6, aliases 15, tokens 1000, directives 50, cost 5000).
    graphqlLimits: {
      maxDepth: read.integer('GRAPHQL_MAX_DEPTH', 6, 1, 10_000),
      maxAliases: read.integer('GRAPHQL_MAX_ALIASES', 15, 0, 10_000),
      maxTokens: read.integer('GRAPHQL_MAX_TOKENS', 1000, 1, 1_000_000),
      maxDirectives: read.integer('GRAPHQL_MAX_DIRECTIVES', 50, 0, 10_000),
      maxCost: read.integer('GRAPHQL_MAX_COST', 5000, 1, 1_000_000_000),
      maxListLength: read.integer('GRAPHQL_MAX_LIST_LENGTH', 100, 1, 100_000),
    },
    graphqlIntrospection: introspection === 'on',
    graphqlIde: read.oneOf('GRAPHQL_IDE', introspection, ['on', 'off'] as const) === 'on',
    graphqlFieldSuggestions: read.oneOf('GRAPHQL_FIELD_SUGGESTIONS', developmentOnly, ['on', 'off'] as const) === 'on',
    exposeErrors: false,
    apiKeysForReads: read.oneOf('API_KEYS_FOR_READS', 'optional', ['required', 'optional'] as const),
    apiKeyCacheSeconds: read.integer('API_KEY_CACHE_SECONDS', 5, 0, 300),
    apiKeyNegativeCacheSeconds: read.integer('API_KEY_NEGATIVE_CACHE_SECONDS', 300, 0, 86_400),
    apiKeyNegativeCacheSize: read.integer('API_KEY_NEGATIVE_CACHE_SIZE', 10_000, 1, 10_000_000),
    trustProxy: read.proxyTrust('TRUST_PROXY'),
    rateLimit: read.oneOf('RATE_LIMIT', 'on', ['on', 'off'] as const) === 'on',
    rateLimitAnonymousPerMinute: read.integer('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 120_000, 1, 100_000_000),
    rateLimitKeyPerMinute: read.integer('RATE_LIMIT_KEY_PER_MINUTE', 120_000, 1, 100_000_000),
    rateLimitKeyChecksPerMinute: read.integer('RATE_LIMIT_KEY_CHECKS_PER_MINUTE', 600, 1, 100_000_000),
    rateLimitGraphqlCostUnit: read.integer('RATE_LIMIT_GRAPHQL_COST_UNIT', 100, 1, 1_000_000),
    live: {
      enabled: read.oneOf('LIVE_SUBSCRIPTIONS', 'on', ['on', 'off'] as const) === 'on',
      maxSubscriptionsPerConnection: read.integer('LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION', 100, 1, 10_000),
      maxIds: read.integer('LIVE_MAX_IDS', 100, 1, 100_000),
      slowConsumerMs: read.integer('LIVE_SLOW_CONSUMER_MS', 10_000, 100, 600_000),
      pingMs: read.integer('LIVE_PING_MS', 15_000, 100, 600_000),
      initTimeoutMs: read.integer('LIVE_INIT_TIMEOUT_MS', 3_000, 100, 600_000),
      caps: {
        connections: 0,
        connectionsPerAddress: read.integer('LIVE_MAX_CONNECTIONS_PER_ADDRESS', 500, 1, 1_000_000),
        connectionsPerKey: read.integer('LIVE_MAX_CONNECTIONS_PER_KEY', 2_000, 1, 1_000_000),
        pendingPerAddress: read.integer('LIVE_MAX_PENDING_PER_ADDRESS', 50, 1, 1_000_000),
        subscriptions: read.integer('LIVE_MAX_SUBSCRIPTIONS', 50_000, 1, 10_000_000),
        subscriptionsPerClient: read.integer('LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT', 5_000, 1, 10_000_000),
        watches: read.integer('LIVE_MAX_WATCHED_IDS', 200_000, 1, 100_000_000),
        watchesPerClient: read.integer('LIVE_MAX_WATCHED_IDS_PER_CLIENT', 20_000, 1, 100_000_000),
      },
    },
  };
}

/** The settings that follow from others: who sees errors, the cache's admission, whether the change feed runs. */
function deriveCacheSettings(read: Reader, config: Config): void {
  config.exposeErrors = config.nodeEnv === 'development';
  // The doorkeeper by default with Redis, where a lookup and a store are
  // round trips and scripts: a long tail's cheap reads cost what they cost
  // with the cache off, and on the shop mix it answered more requests than
  // first-miss, its hit ratio a few points lower (second-miss answered fewer:
  // a search or facets answer asked twice was read twice). In process a lookup and a
  // store cost next to nothing: every miss stored. docs/caching.md has the
  // figures and the commands.
  config.cacheAdmission = read.oneOf('CACHE_ADMISSION', config.redis === undefined ? 'first-miss' : 'doorkeeper', CACHE_ADMISSIONS);
  // auto: whenever another process may write what this one serves (a shared
  // cache means several instances; WORKERS several workers), and whenever
  // anything is cached at all (a load replacing the catalogue is such a write).
  const changeFeed = read.oneOf('CHANGE_FEED', 'auto', ['auto', 'on', 'off'] as const);
  config.changeFeed = changeFeed === 'auto'
    ? config.redis !== undefined || config.workers > 1 || config.cache || config.httpCache.purgeUrl !== undefined
    : changeFeed === 'on';
  // CHANGE_FEED=on for a single process says other instances with caches of their own write too.
  config.soleWriter = changeFeed === 'auto' && config.redis === undefined && config.workers === 1;
  if (!config.changeFeed && !config.live.enabled && config.changeFeedDatabaseUrl !== undefined) {
    read.problems.push(`CHANGE_FEED_DATABASE_URL is set but the change feed is off (CHANGE_FEED=${changeFeed}${changeFeed === 'auto' ? ', with CACHE=off and neither REDIS_URL, REDIS_SENTINELS, WORKERS > 1 nor CDN_PURGE_URL' : ''}, LIVE_SUBSCRIPTIONS=off): set CHANGE_FEED=on or remove it`);
  }
  if (read.has('CACHE_LOCAL_MB') && config.cacheLocalBytes > 0 && (config.redis === undefined || !config.changeFeed)) {
    read.problems.push(config.redis === undefined
      ? 'CACHE_LOCAL_MB is set but there is no Redis (REDIS_URL or REDIS_SENTINELS): without one the whole cache is in process already; remove it'
      : `CACHE_LOCAL_MB is set but the change feed is off (CHANGE_FEED=${changeFeed}): the local tier would not hear other instances' writes; set CHANGE_FEED=on or CACHE_LOCAL_MB=0`);
  }
}

/** Settings that cannot go together, or that another bounds. */
function checkCombinations(read: Reader, config: Config): void {
  if (config.databasePooler === 'transaction') {
    if (config.databaseUrl === undefined) read.problem('DATABASE_POOLER=transaction needs DATABASE_URL (the pooler): the embedded Postgres has none');
    if (config.databaseDirectUrl === undefined) read.problem('DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: the primary without the pooler, for what needs a session of its own (migrations, the change feed\'s LISTEN, the sidecar\'s sync lock)');
  }
  if (!read.has('EXPENSIVE_READS_CONCURRENCY')) {
    config.expensiveReads.concurrency = Math.max(1, Math.min(config.expensiveReads.concurrency, config.databasePoolSize - 1));
  } else if (config.expensiveReads.concurrency >= config.databasePoolSize) {
    read.problem(`EXPENSIVE_READS_CONCURRENCY (${config.expensiveReads.concurrency}) must be less than DATABASE_POOL_SIZE (${config.databasePoolSize}): expensive reads would be able to take every connection (0 turns the limit off)`);
  }
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    read.problems.push(`HTTP_HEADERS_TIMEOUT_MS (${config.httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${config.httpRequestTimeoutMs}): the headers are part of the request`);
  }
  // The grace period is part of the shutdown deadline: by default 1 s, or half the deadline when that is shorter.
  const graceDefault = config.shutdownTimeoutMs === 0 ? 1_000 : Math.min(1_000, Math.floor(config.shutdownTimeoutMs / 2));
  config.shutdownIdleGraceMs = read.integer('SHUTDOWN_IDLE_GRACE_MS', graceDefault, 0, 600_000);
  if (config.shutdownTimeoutMs > 0 && config.shutdownIdleGraceMs >= config.shutdownTimeoutMs) {
    read.problems.push(`SHUTDOWN_IDLE_GRACE_MS (${config.shutdownIdleGraceMs}) must be less than SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs}): the grace period is part of the shutdown deadline`);
  }
  if (config.cors.credentials && !Array.isArray(config.cors.origins)) {
    read.problem(`CORS_CREDENTIALS=on needs CORS_ORIGINS to list the origins allowed to send credentials (it is ${config.cors.origins === false ? 'off' : '*'}; browsers refuse credentials with *)`);
  }
  if (config.httpCache.purgeToken !== undefined && config.httpCache.purgeUrl === undefined) read.problem('CDN_PURGE_TOKEN is set but CDN_PURGE_URL is not');
  if (read.has('ADMIN_HOST') && !read.has('ADMIN_PORT')) read.problem('ADMIN_HOST is set but ADMIN_PORT is not (the admin listener needs a port)');
  if (config.admin.port !== undefined && config.admin.port !== 0 && config.admin.port === config.port) {
    read.problem(`ADMIN_PORT must differ from PORT (both are ${config.port})`);
  }
  if (config.federation && config.trustedDocuments) {
    read.problem('FEDERATION=on and TRUSTED_DOCUMENTS=on cannot be combined: a router writes the subgraph\'s operations, so no manifest can list them; enforce trusted documents (persisted queries) at the router instead (docs/federation.md)');
  }
  // Unset, the ids of a subscription follow the list limit down (a stricter
  // GRAPHQL_MAX_LIST_LENGTH is not a reason to refuse to start).
  if (!read.has('LIVE_MAX_IDS')) config.live.maxIds = Math.min(config.live.maxIds, config.graphqlLimits.maxListLength);
  if (config.live.maxIds > config.graphqlLimits.maxListLength) {
    read.problem(`LIVE_MAX_IDS (${config.live.maxIds}) must not exceed GRAPHQL_MAX_LIST_LENGTH (${config.graphqlLimits.maxListLength}): the ids are a list argument like any other`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const read = new Reader(env);
  const config = readSettings(read);
  deriveCacheSettings(read, config);
  checkCombinations(read, config);
  readLiveConnections(read, config);
  config.sidecar = readSidecar(read);
  config.traces = readTraces(read);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** LIVE_MAX_CONNECTIONS: a share of HTTP_MAX_CONNECTIONS unless set, and never more (requests need room). */
function readLiveConnections(read: Reader, config: Config): void {
  const fallback = Math.max(1, Math.floor(config.httpMaxConnections * LIVE_SHARE_OF_CONNECTIONS));
  const caps = config.live.caps;
  caps.connections = read.integer('LIVE_MAX_CONNECTIONS', fallback, 1, 1_000_000);
  if (caps.connections > config.httpMaxConnections) {
    read.problem(`LIVE_MAX_CONNECTIONS (${caps.connections}) must not exceed HTTP_MAX_CONNECTIONS (${config.httpMaxConnections}): live connections are connections like any other`);
  }
  if (caps.watchesPerClient < config.live.maxIds) {
    read.problem(`LIVE_MAX_WATCHED_IDS_PER_CLIENT (${caps.watchesPerClient}) must be at least LIVE_MAX_IDS (${config.live.maxIds}): else a subscription of the most ids could never start`);
  }
}

/** Redis: one server by URL, or a master found through Sentinels; its problems go to `read`. */
function readRedis(read: Reader): RedisTarget | undefined {
  const url = read.optionalUrl('REDIS_URL', ['redis:', 'rediss:']);
  const sentinels = read.hostPorts('REDIS_SENTINELS');
  const masterName = read.string('REDIS_SENTINEL_MASTER', 'mymaster');
  const password = read.secret('REDIS_PASSWORD', 1);
  const sentinelPassword = read.secret('REDIS_SENTINEL_PASSWORD', 1);
  if (sentinels === undefined) {
    for (const name of ['REDIS_SENTINEL_MASTER', 'REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD']) {
      if (read.has(name)) read.problem(`${name} is set but REDIS_SENTINELS is not (it applies to Redis found through Sentinels${name === 'REDIS_PASSWORD' ? '; with REDIS_URL, put the password in the URL' : ''})`);
    }
    return url === undefined ? undefined : { url };
  }
  if (url !== undefined) read.problem('REDIS_URL and REDIS_SENTINELS are both set: set REDIS_URL for one Redis server, or REDIS_SENTINELS (with REDIS_SENTINEL_MASTER) for a master Sentinel fails over, not both');
  if (!/^[A-Za-z0-9._-]+$/.test(masterName)) read.problem(`REDIS_SENTINEL_MASTER must be the master's name in the Sentinels' configuration: letters, digits, '.', '_' and '-' (got "${masterName}")`);
  return { sentinels, masterName, ...(password === undefined ? {} : { password }), ...(sentinelPassword === undefined ? {} : { sentinelPassword }) };
}

/** Sidecar mode's settings, when LEGACY_SOURCE_URL is set; its problems go to `read`. */
function readSidecar(read: Reader): SidecarConfig | undefined {
  const baseUrl = read.optionalUrl('LEGACY_SOURCE_URL', ['http:', 'https:']);
  const headerLine = read.string('LEGACY_SOURCE_HEADER', '');
  const d = LEGACY_CLIENT_DEFAULTS;
  const client = {
    maxRps: read.integer('LEGACY_MAX_RPS', d.maxRps, 1, 10_000),
    maxConcurrency: read.integer('LEGACY_MAX_CONCURRENCY', d.maxConcurrency, 1, 1_000),
    timeoutMs: read.integer('LEGACY_TIMEOUT_MS', d.timeoutMs, 10, 600_000),
    maxAttempts: read.integer('LEGACY_MAX_ATTEMPTS', d.maxAttempts, 1, 20),
    backoffBaseMs: read.integer('LEGACY_BACKOFF_BASE_MS', d.backoffBaseMs, 0, 600_000),
    backoffMaxMs: read.integer('LEGACY_BACKOFF_MAX_MS', d.backoffMaxMs, 0, 3_600_000),
    retryAfterMaxMs: read.integer('LEGACY_RETRY_AFTER_MAX_MS', d.retryAfterMaxMs, 0, 86_400_000),
    retryAfterMaxWaitMs: read.integer('LEGACY_RETRY_AFTER_MAX_WAIT_MS', d.retryAfterMaxWaitMs, 0, 3_600_000),
    breakerFailureThreshold: read.integer('LEGACY_BREAKER_FAILURES', d.breakerFailureThreshold, 1, 1_000),
    breakerCooldownMs: read.integer('LEGACY_BREAKER_COOLDOWN_MS', d.breakerCooldownMs, 1, 3_600_000),
    breakerMaxCooldownMs: read.integer('LEGACY_BREAKER_MAX_COOLDOWN_MS', d.breakerMaxCooldownMs, 1, 86_400_000),
  };
  const syncIntervalSeconds = read.number('LEGACY_SYNC_INTERVAL_SECONDS', 30, 0.1, 86_400);
  const sync = read.oneOf('LEGACY_SYNC', 'on', ['on', 'off'] as const) === 'on';
  const pageSize = read.integer('LEGACY_SYNC_PAGE_SIZE', 100, 1, 10_000);
  const recentIds = read.integer('LEGACY_SYNC_RECENT_IDS', 10_000, 0, 10_000_000);
  if (baseUrl === undefined) {
    if (headerLine !== '') read.problem('LEGACY_SOURCE_HEADER is set but LEGACY_SOURCE_URL is not');
    return undefined;
  }
  let headers: Record<string, string> = {};
  if (headerLine !== '') {
    const header = parseHeaderLine(headerLine);
    if (header) headers = { [header.name]: header.value };
    // Never echoed: it usually holds a token.
    else read.problem(`LEGACY_SOURCE_HEADER must be one header line "Name: value", e.g. "Authorization: Token abc" (got ${headerLine.length} characters that are not one)`);
  }
  try {
    resolveLegacyClientOptions({ baseUrl, headers, ...client });
  } catch (error) {
    read.problem(`LEGACY_* settings: ${(error as Error).message}`);
  }
  return { client: { baseUrl, headers, ...client }, syncIntervalSeconds, sync, pageSize, recentIds };
}

/** `k=v,k2=v2` with percent-encoded values (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS); a bad entry is reported by position (it may hold a token). */
function keyValueList(read: Reader, name: string, text: string): Record<string, string> {
  const list: Record<string, string> = {};
  text.split(',').forEach((entry, i) => {
    if (entry.trim() === '') return;
    const at = entry.indexOf('=');
    try {
      if (at <= 0) throw new Error('no key');
      list[decodeURIComponent(entry.slice(0, at).trim())] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      read.problem(`${name}: entry ${i + 1} is not key=value (percent-encoded)`);
    }
  });
  return list;
}

/**
 * OpenTelemetry traces: on when an OTLP endpoint is named or
 * OTEL_TRACES_EXPORTER=otlp, off with OTEL_TRACES_EXPORTER=none or
 * OTEL_SDK_DISABLED=true whatever else is set. The default sampler keeps 5% of
 * new traces (and follows the caller's decision when a traceparent came).
 */
function readTraces(read: Reader): TracesConfig | undefined {
  const exporter = read.oneOf('OTEL_TRACES_EXPORTER', 'unset', ['unset', 'otlp', 'none'] as const);
  const disabled = read.oneOf('OTEL_SDK_DISABLED', 'false', ['true', 'false'] as const) === 'true';
  const endpoint = read.optionalUrl('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const tracesEndpoint = read.optionalUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  read.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf', ['http/protobuf'] as const);
  const sampler = read.oneOf('OTEL_TRACES_SAMPLER', 'parentbased_traceidratio', SAMPLERS);
  const ratio = read.number('OTEL_TRACES_SAMPLER_ARG', 0.05, 0, 1);
  const resourceAttributes = keyValueList(read, 'OTEL_RESOURCE_ATTRIBUTES', read.string('OTEL_RESOURCE_ATTRIBUTES', ''));
  const serviceName = read.string('OTEL_SERVICE_NAME', resourceAttributes['service.name'] ?? 'catalogue-api');
  // Never echoed: they usually hold a token.
  const headers = {
    ...keyValueList(read, 'OTEL_EXPORTER_OTLP_HEADERS', read.string('OTEL_EXPORTER_OTLP_HEADERS', '')),
    ...keyValueList(read, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', read.string('OTEL_EXPORTER_OTLP_TRACES_HEADERS', '')),
  };
  const on = exporter === 'otlp' || (exporter === 'unset' && (endpoint !== undefined || tracesEndpoint !== undefined));
  if (!on || disabled) return undefined;
  const url = tracesEndpoint ?? `${(endpoint ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  return { url, headers, sampler, ratio, serviceName, resourceAttributes };
}
