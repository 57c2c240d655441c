// A GraphQL test app on its own database holding a small generated catalogue:
// fresh migrated database, generated legacy CSVs loaded by the real loader,
// and the Fastify server built on it. Requests go through `app.inject()`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { generateCatalogue, type Manifest } from '../../src/etl/generate/generate.ts';
import { loadCatalogue } from '../../src/etl/load/load.ts';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type App } from '../../src/server.ts';
import type { LogDestination } from '../../src/observability/logging.ts';
import { ApiKeyStore } from '../../src/auth/key-store.ts';
import { connectDatabase } from '../../src/db/pool/pool.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { TEST_SCALE, TEST_SEED } from './catalogue-template.ts';

export { TEST_SCALE, TEST_SEED };

export interface GraphQLError {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: Record<string, unknown> & { code?: string; field?: string };
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Value of the x-sql-statements header, as a number. */
  statements: number;
  body: { data?: T | null; errors?: GraphQLError[] };
  raw: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
}

/** Reads the catalogue database directly (to compare the API with the rows). */
export class DirectDb {
  private readonly pool: pg.Pool;
  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 2 });
    this.pool.on('error', () => {});
  }
  async rows<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(sql, params)).rows as R[];
  }
  async one<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R> {
    const rows = await this.rows<R>(sql, params);
    if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}: ${sql}`);
    return rows[0] as R;
  }
  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The GraphQL executors the server can run (config GRAPHQL_JIT); tests cover both. */
export const EXECUTORS = [
  { engine: 'graphql-js', env: { GRAPHQL_JIT: 'off' } },
  { engine: 'graphql-jit', env: { GRAPHQL_JIT: 'on' } },
] as const satisfies readonly { engine: string; env: Record<string, string> }[];

/** Generated legacy CSV files, to load into one or more databases. */
export interface TestFiles {
  dir: string;
  manifest: Manifest;
  remove(): void;
}

export async function generateTestFiles(options: { scale?: number; seed?: number } = {}): Promise<TestFiles> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-graphql-'));
  try {
    const manifest = await generateCatalogue({ scale: options.scale ?? TEST_SCALE, seed: options.seed ?? TEST_SEED, out: dir, quiet: true });
    return { dir, manifest, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface TestCatalogue {
  db: TestDatabase;
  manifest: Manifest;
  direct: DirectDb;
  dispose(): Promise<void>;
}

/**
 * A fresh database with a generated catalogue loaded into it by the real
 * loader: from `files` when given (left in place), else from files generated
 * for it and removed once loaded. On the shared test server unless `serverUrl` is given.
 * The default catalogue (no options) is a copy of the run's template, loaded
 * the same way once (./catalogue-template.ts).
 */
export async function createTestCatalogue(options: { scale?: number; seed?: number; files?: TestFiles; serverUrl?: string } = {}): Promise<TestCatalogue> {
  const template = inject('catalogueTemplate');
  const isDefault = Object.values(options).every((value) => value === undefined);
  const { db, manifest } = isDefault ? { db: await createTestDatabase({ template: template.database }), manifest: template.manifest } : await loadTestCatalogue(options);
  const direct = new DirectDb(db.url);
  return {
    db, manifest, direct,
    async dispose() {
      await direct.close().catch(() => {});
      await db.drop();
    },
  };
}

/** A catalogue other than the default one (the run's template): its files generated (or given) and loaded. */
async function loadTestCatalogue(options: { scale?: number; seed?: number; files?: TestFiles; serverUrl?: string }): Promise<{ db: TestDatabase; manifest: Manifest }> {
  const files = options.files ?? await generateTestFiles(options);
  let db: TestDatabase | undefined;
  try {
    db = await createTestDatabase({ serverUrl: options.serverUrl });
    await loadCatalogue({ databaseUrl: db.url, dir: files.dir, replace: false });
    return { db, manifest: files.manifest };
  } catch (error) {
    await db?.drop().catch(() => {});
    throw error;
  } finally {
    if (!options.files) files.remove();
  }
}

export type NodeEnv = 'development' | 'production' | 'test';

/** Whether request options already say how to authenticate (then the default key is not added). */
function hasCredentials(headers: InjectOptions['headers']): boolean {
  return Object.keys(headers ?? {}).some((name) => ['authorization', 'x-api-key'].includes(name.toLowerCase()));
}

/**
 * What Apollo Client 4 sends as Accept: the GraphQL-over-HTTP media type
 * first, so request errors (parse, validation, limits) are 400s
 * (src/graphql/http-status.ts); test/http/graphql-over-http.test.ts covers plain application/json.
 */
export const GRAPHQL_ACCEPT = 'application/graphql-response+json,application/json;q=0.9';

export class TestClient {
  readonly app: FastifyInstance;
  readonly server: App;
  /** The API key every request through `app.inject` carries unless it sets its own credentials (none: anonymous). */
  readonly apiKey: string | undefined;
  /** `app.inject` without the default key: an anonymous request. */
  readonly injectAnonymous: (options: InjectOptions) => ReturnType<FastifyInstance['inject']>;
  constructor(server: App, apiKey: string | undefined) {
    this.server = server;
    this.app = server.app;
    this.apiKey = apiKey;
    // Writes need a key, so requests carry the client's by default, also in
    // tests that call app.inject directly.
    const inject = server.app.inject.bind(server.app) as (options: InjectOptions) => ReturnType<FastifyInstance['inject']>;
    this.injectAnonymous = inject;
    if (apiKey === undefined) return;
    server.app.inject = ((options: InjectOptions | string) => {
      const request = typeof options === 'string' ? { url: options } : options;
      return inject(hasCredentials(request.headers) ? request : { ...request, headers: { ...request.headers, authorization: `Bearer ${apiKey}` } });
    }) as FastifyInstance['inject'];
  }

  /** POST /graphql with a typed document (from the generated operations) or a query string. */
  post<R, V extends Record<string, unknown>>(document: TypedDocumentNode<R, V>, variables: V, options?: RequestOptions): Promise<GraphQLResponse<R>>;
  post<R = Record<string, any>>(query: string, variables?: Record<string, unknown>, options?: RequestOptions): Promise<GraphQLResponse<R>>;
  async post(query: string | TypedDocumentNode<unknown, Record<string, unknown>>, variables?: Record<string, unknown>, options: RequestOptions = {}): Promise<GraphQLResponse<unknown>> {
    const payload = { query: typeof query === 'string' ? query : print(query), ...(variables ? { variables } : {}) };
    const response = await this.app.inject({
      method: 'POST', url: '/graphql', payload,
      headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT, ...options.headers },
    });
    return toResponse(response);
  }

  /** GET /graphql?query=...&variables=... */
  async get<R = Record<string, any>>(query: string, variables?: Record<string, unknown>, options: RequestOptions = {}): Promise<GraphQLResponse<R>> {
    const params = new URLSearchParams({ query });
    if (variables) params.set('variables', JSON.stringify(variables));
    const response = await this.app.inject({ method: 'GET', url: `/graphql?${params}`, headers: { accept: GRAPHQL_ACCEPT, ...options.headers } });
    return toResponse<R>(response);
  }

  /** POST /graphql with a raw body (for malformed requests). */
  async postRaw(body: string, headers: Record<string, string> = { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT }): Promise<GraphQLResponse> {
    return toResponse(await this.app.inject({ method: 'POST', url: '/graphql', payload: body, headers }));
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

function toResponse<T>(response: { statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string }): GraphQLResponse<T> {
  let body: GraphQLResponse<T>['body'];
  try {
    body = JSON.parse(response.body) as GraphQLResponse<T>['body'];
  } catch {
    body = {};
  }
  const header = response.headers['x-sql-statements'];
  return { status: response.statusCode, headers: response.headers, statements: header === undefined ? Number.NaN : Number(header), body, raw: response.body };
}

/** Creates an API key in the database (as `npm run keys -- create` does); returns its secret. */
export async function createTestApiKey(databaseUrl: string, options: { name?: string; ratePerMinute?: number | null } = {}): Promise<string> {
  const database = connectDatabase(databaseUrl, { poolSize: 1 });
  const store = new ApiKeyStore(database);
  try {
    const { secret } = await store.create(options.name ?? 'test client', options.ratePerMinute ?? null);
    return secret;
  } finally {
    await store.close();
    await database.close();
  }
}

/**
 * Builds the real server (buildServer) on a database, configured like NODE_ENV
 * says. GRAPHQL_JIT from the environment is passed on, so the whole suite can
 * run on either executor (`GRAPHQL_JIT=off npx vitest run`); `env` overrides it.
 * Requests carry a fresh API key of the client's (`apiKey`) unless they set
 * their own credentials (`injectAnonymous` sends none); with `apiKey: false`
 * the client has no key (for a database without the api_keys table).
 */
export interface TestClientOptions {
  nodeEnv?: NodeEnv;
  env?: Record<string, string>;
  apiKey?: boolean;
  /** Where the key is created, when not through `databaseUrl` (which may be a pooler the key store's connection cannot use). */
  apiKeyDatabaseUrl?: string;
  logDestination?: LogDestination;
}

export async function createTestClient(databaseUrl: string, options: TestClientOptions = {}): Promise<TestClient> {
  const inherited = process.env.GRAPHQL_JIT ? { GRAPHQL_JIT: process.env.GRAPHQL_JIT } : {};
  // The response cache is off unless a test turns it on: these tests also
  // write straight to the database, which no cache could know about. Rate
  // limits too: budgets are spent by operation cost, and a test file sends
  // far more than a client would (test/auth/ turns them on).
  const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: options.nodeEnv ?? 'test', CACHE: 'off', RATE_LIMIT: 'off', ...inherited, ...options.env });
  const server = await buildServer(config, databaseUrl, { logDestination: options.logDestination });
  await server.app.ready();
  return new TestClient(server, options.apiKey === false ? undefined : await createTestApiKey(options.apiKeyDatabaseUrl ?? databaseUrl));
}

/**
 * A stand-in for a value a `beforeAll` creates: reading it (a property or a
 * method) before then, or after the `afterAll` that ends it, throws; after it,
 * everything reads through to the value (methods bound to it).
 */
function lazy<T extends object>(what: string, current: () => T | undefined): T {
  const value = (): T => {
    const created = current();
    if (created === undefined) throw new Error(`${what} is used outside the tests it was set up for (before beforeAll or after afterAll)`);
    return created;
  };
  return new Proxy({} as T, {
    get(_, property) {
      const target = value();
      const read = Reflect.get(target, property, target) as unknown;
      return typeof read === 'function' ? (read as (...args: unknown[]) => unknown).bind(target) : read;
    },
    set(_, property, assigned) { return Reflect.set(value(), property, assigned); },
    has(_, property) { return Reflect.has(value(), property); },
  });
}

/**
 * The set-up of a test file (or of a describe block, when called in one): a
 * test catalogue (createTestCatalogue with `options`) created in `beforeAll`
 * and disposed in `afterAll`. Returns it at once, to be read in the tests and
 * in later hooks (useTestClient(catalogue, ...) included).
 */
export function useTestCatalogue(options: Parameters<typeof createTestCatalogue>[0] & { timeout?: number } = {}): TestCatalogue {
  const { timeout, ...catalogueOptions } = options;
  let catalogue: TestCatalogue | undefined;
  beforeAll(async () => {
    catalogue = await createTestCatalogue(catalogueOptions);
  }, timeout);
  afterAll(async () => {
    const created = catalogue;
    catalogue = undefined;
    await created?.dispose();
  });
  return lazy('the test catalogue', () => catalogue);
}

/** A client for one test: created, handed to `run`, closed after it whatever happens. */
export async function withTestClient(databaseUrl: string, options: TestClientOptions, run: (client: TestClient) => Promise<void>): Promise<void> {
  const client = await createTestClient(databaseUrl, options);
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

/**
 * A test client (createTestClient with `options`) for the scope it is called
 * in: built in `beforeAll` on the catalogue's database (or on the database a
 * function names then; options from a function are read then too), closed in `afterAll`, before the catalogue of the same
 * scope is disposed (vitest runs after-hooks in reverse order).
 */
export function useTestClient(database: TestCatalogue | (() => string), options: TestClientOptions | (() => TestClientOptions) = {}): TestClient {
  let client: TestClient | undefined;
  beforeAll(async () => {
    client = await createTestClient(typeof database === 'function' ? database() : database.db.url, typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    const created = client;
    client = undefined;
    await created?.close();
  });
  return lazy('the test client', () => client);
}
