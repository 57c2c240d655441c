// The one place that reads the environment. Everything else receives a Config.
// Every bad value is reported at once, with the variable name and what was expected.
import path from 'node:path';

export interface Config {
  /** Postgres to use; undefined means "start the embedded server". */
  databaseUrl: string | undefined;
  /** Root of local state (embedded Postgres data, sample CSVs). Git-ignored. */
  dataDir: string;
  embeddedPostgresPort: number;
  /** Scale of the sample catalogue loaded into an empty embedded database. */
  sampleScale: number;
  host: string;
  port: number;
  nodeEnv: 'development' | 'production' | 'test';
  /** HTTP server processes sharing the port (1 = serve in the main process). */
  workers: number;
  /** Redis for the shared response cache; undefined: an in-process cache. */
  redisUrl: string | undefined;
  /** Response cache for read routes. */
  cache: boolean;
  cacheTtlSeconds: number;
  cachePrefix: string;
  /** Run only the operations of the codegen persisted-documents manifest. */
  trustedDocuments: boolean;
  /** How long persisted query hashes are kept (APQ). */
  apqTtlSeconds: number;
  /** Longest a Redis command may take before the request goes to Postgres instead. */
  redisTimeoutMs: number;
  /** Connections in this process's Postgres pool. */
  databasePoolSize: number;
  /** Longest opening one Postgres connection may take (TCP, TLS, authentication) before it counts as unreachable. */
  databaseConnectTimeoutMs: number;
  /** Longest a request waits for a pooled connection (all busy, or one being opened) before it gets a 503. */
  databasePoolQueueTimeoutMs: number;
  /** Postgres statement_timeout of every pooled connection (lock waits included); the driver gives up a little later. */
  databaseStatementTimeoutMs: number;
  /** How long an Idempotency-Key of a create is remembered. */
  idempotencyKeyTtlSeconds: number;
  /** Longest SIGTERM/SIGINT waits for in-flight requests before the process exits anyway (with code 1). */
  shutdownTimeoutMs: number;
  /** Largest `count`/`first` a client may ask for in one page. */
  maxPageSize: number;
  /** `campus` value of legacy REST product objects. */
  legacyCampus: string;
  /** Legacy REST: styles without photos/skus get the live service's null placeholders (true) or [] and {} (false). */
  legacyEmptyPlaceholders: boolean;
  /** Execute GraphQL with graphql-jit (compiled queries) instead of graphql-js. */
  graphqlJit: boolean;
  /** Show internal error details to clients (never in production). */
  exposeErrors: boolean;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
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

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) {
        this.problems.push(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${url.protocol}//...")`);
      }
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
    return value;
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

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }
}

export function loadConfig(env: Env = process.env): Config {
  const read = new Reader(env);
  const config: Config = {
    databaseUrl: read.optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(read.string('DATA_DIR', '.data')),
    embeddedPostgresPort: read.integer('EMBEDDED_PG_PORT', 54329, 1024, 65535),
    sampleScale: read.number('SAMPLE_SCALE', 0.01, 0.00001, 1),
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', 4000, 0, 65535),
    nodeEnv: read.oneOf('NODE_ENV', 'development', ['development', 'production', 'test'] as const),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error', 'silent'] as const),
    workers: read.integer('WORKERS', 1, 1, 64),
    redisUrl: read.optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
    cache: read.oneOf('CACHE', 'on', ['on', 'off'] as const) === 'on',
    cacheTtlSeconds: read.integer('CACHE_TTL_SECONDS', 300, 1, 7 * 24 * 3600),
    cachePrefix: read.string('CACHE_PREFIX', 'catalogue:'),
    redisTimeoutMs: read.integer('REDIS_TIMEOUT_MS', 100, 5, 10_000),
    trustedDocuments: read.oneOf('TRUSTED_DOCUMENTS', 'off', ['on', 'off'] as const) === 'on',
    apqTtlSeconds: read.integer('APQ_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 500),
    databaseConnectTimeoutMs: read.integer('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    databasePoolQueueTimeoutMs: read.integer('DATABASE_POOL_QUEUE_TIMEOUT_MS', 2_000, 10, 60_000),
    databaseStatementTimeoutMs: read.integer('DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 10, 3_600_000),
    idempotencyKeyTtlSeconds: read.integer('IDEMPOTENCY_KEY_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    maxPageSize: read.integer('MAX_PAGE_SIZE', 100, 1, 10_000),
    legacyCampus: read.string('LEGACY_CAMPUS', 'hr-rfp'),
    legacyEmptyPlaceholders: read.oneOf('LEGACY_EMPTY_PLACEHOLDERS', 'on', ['on', 'off'] as const) === 'on',
    graphqlJit: read.oneOf('GRAPHQL_JIT', 'on', ['on', 'off'] as const) === 'on',
    exposeErrors: false,
  };
  config.exposeErrors = config.nodeEnv === 'development';
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
