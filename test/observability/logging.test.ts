// The JSON log lines, read from the logger's stream: every line a request
// writes carries its id (reqId, echoed in x-request-id); each request ends
// with exactly one completion line (GraphQL: operation, status, duration);
// internal errors are logged with the request id; LOG_LEVEL is respected.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { ApolloServer } from '@apollo/server';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import { loggerOptions, requestLoggerFactory } from '../../src/observability/logging.ts';
import { noteResolved, operationRecordPlugin, recordOperation, type OperationRecord } from '../../src/observability/graphql-operations.ts';
import { logInternalErrors } from '../../src/graphql/errors.ts';
import { CapturedLog } from '../support/captured-log.ts';

/** In production /metrics needs it. */
const ADMIN_TOKEN = 'logging-test-admin-token';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const catalogue = useTestCatalogue();
const log = new CapturedLog();
const client = useTestClient(catalogue, { nodeEnv: 'production', env: { LOG_LEVEL: 'info', ADMIN_TOKEN }, logDestination: log });

describe('request logs', () => {
  it('a REST request: its id echoed in x-request-id, one JSON completion line carrying it', async () => {
    const response = await client.app.inject({ method: 'GET', url: '/products/3', headers: { 'x-request-id': 'log-rest-1' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('log-rest-1');
    const lines = log.of('log-rest-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30, msg: 'request completed', method: 'GET', url: '/products/3', route: '/products/:product_id',
      status: 200, sqlStatements: Number(response.headers['x-sql-statements']),
    });
    expect(lines[0]?.durationMs).toBeGreaterThan(0);
    expect(lines[0]?.time).toBeGreaterThan(Date.now() - 60_000);
    expect(log.lines.filter((line) => line.msg === 'incoming request')).toEqual([]);
  });

  it('a GraphQL request: one completion line with the operation name, type, status and duration', async () => {
    const response = await client.post('query LoggedProduct { product(id: "2") { name } }', undefined, { headers: { 'x-request-id': 'log-gql-1' } });
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('log-gql-1');
    const lines = log.of('log-gql-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30, msg: 'request completed', route: '/graphql', status: 200,
      operation: 'LoggedProduct', operationType: 'query', graphqlErrors: 0,
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
  });

  it('a generated request id is the one in the log', async () => {
    const response = await client.post('{ product(id: "1") { id } }');
    const id = response.headers['x-request-id'] as string;
    expect(id).toMatch(UUID);
    expect(log.of(id)).toEqual([expect.objectContaining({ msg: 'request completed', operation: 'anonymous', status: 200 })]);
  });

  it('a rejected GraphQL request logs its status and error count', async () => {
    const response = await client.post('{ product(id: "1") { nope } }', undefined, { headers: { 'x-request-id': 'log-gql-400' } });
    expect(response.status).toBe(400);
    expect(log.of('log-gql-400')).toEqual([expect.objectContaining({ msg: 'request completed', status: 400, graphqlErrors: 1 })]);
  });

  it('redacts secrets in query strings (api_key, key, token, access_token, any case, even percent-encoded names)', async () => {
    const query = 'api_key=cat_secret1&page=2&Key=secret2&TOKEN=secret3&access_token=secret4&api%5Fkey=secret5&count=1&keys=kept&apikey=secret6&x=token';
    const response = await client.injectAnonymous({ method: 'GET', url: `/products/3?${query}`, headers: { 'x-request-id': 'log-redact-1' } });
    expect(response.statusCode).toBe(200);
    const [line] = log.of('log-redact-1');
    expect(line?.url).toBe('/products/3?api_key=[REDACTED]&page=2&Key=[REDACTED]&TOKEN=[REDACTED]&access_token=[REDACTED]&api%5Fkey=[REDACTED]&count=1&keys=kept&apikey=[REDACTED]&x=token');
    // GraphQL GET too, and nothing anywhere in the log keeps a secret.
    await client.injectAnonymous({ method: 'GET', url: '/graphql?query=%7B__typename%7D&token=secret7', headers: { accept: 'application/json', 'x-request-id': 'log-redact-2' } });
    expect(log.of('log-redact-2')[0]?.url).toBe('/graphql?query=%7B__typename%7D&token=[REDACTED]');
    expect(JSON.stringify(log.lines)).not.toMatch(/secret\d/);
  });

  it.each([['PUT', '/products/1'], ['POST', '/graphql']])('a request body the client never finishes (%s %s): a 408, logged as the client\'s doing, never as a database outage', async (method, path) => {
    const slowLog = new CapturedLog();
    const slow = await createTestClient(catalogue.db.url, { nodeEnv: 'production', env: { LOG_LEVEL: 'info', HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '400' }, logDestination: slowLog });
    try {
      await slow.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = slow.app.server.address() as net.AddressInfo;
      const answer = await new Promise<string>((resolve) => {
        let received = '';
        const socket = net.connect({ host: '127.0.0.1', port }, () => {
          socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nx-request-id: log-hanging-body\r\nAuthorization: Bearer ${slow.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query": "ha`);
        });
        socket.on('data', (chunk) => { received += chunk.toString(); });
        socket.on('close', () => resolve(received));
        socket.on('error', () => {});
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      for (let i = 0; i < 50 && slowLog.of('log-hanging-body').length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const lines = slowLog.of('log-hanging-body');
      expect(lines.map((line) => line.msg)).not.toContain('database unavailable in a REST route');
      expect(lines.filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([]);
      expect(lines.map((line) => line.msg)).toContain('the client did not finish sending the request');
    } finally {
      await slow.close();
    }
  });

  it('probes and scrapes are not logged at info level', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      const response = await client.app.inject({ method: 'GET', url, headers: { 'x-request-id': `log-probe${url.replace('/', '-')}`, authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.statusCode).toBe(200);
      expect(log.of(`log-probe${url.replace('/', '-')}`)).toEqual([]);
    }
  });
});

describe('internal errors and LOG_LEVEL', () => {
  // A server whose database is a closed port: every read is an internal error.
  const clients: { info?: TestClient; warn?: TestClient } = {};
  const logs = { info: new CapturedLog(), warn: new CapturedLog() };
  let unmigrated: TestDatabase | undefined;
  beforeAll(async () => {
    // A database without the catalogue's tables: every read is an internal
    // error (an unreachable one would be a 503 "database unavailable" instead).
    unmigrated = await createTestDatabase({ migrated: false });
    for (const level of ['info', 'warn'] as const) {
      clients[level] = await createTestClient(unmigrated.url, { apiKey: false, nodeEnv: 'production', env: { LOG_LEVEL: level }, logDestination: logs[level] });
    }
  });
  afterAll(async () => {
    await clients.info?.close();
    await clients.warn?.close();
    await unmigrated?.drop();
  });

  it('a GraphQL internal error is logged with the request id; the completion line follows', async () => {
    const response = await clients.info!.post('query Broken { product(id: "1") { name } }', undefined, { headers: { 'x-request-id': 'log-err-gql' } });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    const lines = logs.info.of('log-err-gql');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([[50, 'internal error in a GraphQL operation'], [30, 'request completed']]);
    expect(lines[0]).toMatchObject({ operationName: 'Broken', error: expect.stringMatching(/relation "products" does not exist/) });
    expect(lines[1]).toMatchObject({ operation: 'Broken', graphqlErrors: 1 });
  });

  it('a REST internal error is logged with the request id', async () => {
    const response = await clients.info!.app.inject({ method: 'GET', url: '/products/1/related', headers: { 'x-request-id': 'log-err-rest' } });
    expect(response.statusCode).toBe(500);
    const lines = logs.info.of('log-err-rest');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([[50, 'internal error in a REST route'], [30, 'request completed']]);
    expect(lines[1]).toMatchObject({ status: 500, route: '/products/:product_id/related' });
  });

  it('LOG_LEVEL=warn: no completion lines, errors still logged with the request id', async () => {
    await clients.warn!.post('{ product(id: "1") { name } }', undefined, { headers: { 'x-request-id': 'log-warn-gql' } });
    expect(logs.warn.of('log-warn-gql').map((line) => [line.level, line.msg])).toEqual([[50, 'internal error in a GraphQL operation']]);
    expect(logs.warn.lines.filter((line) => line.level < 40)).toEqual([]);
  });
});

describe('an error thrown outside any field', () => {
  // Apollo answers 500 without didEncounterErrors when a plugin throws (a
  // stack overflow building the result cache's key did, found by an outside
  // run): it was logged as a plain-text line without the request id, and the
  // completion line said graphqlErrors: 0. Apollo and the server's own
  // plugins, on Fastify with the server's logger, and a plugin that throws.
  it('is logged at level 50 with the request id; the completion line counts it; every line is JSON', async () => {
    const lines = new CapturedLog();
    const app = Fastify({ ...loggerOptions('info', lines), requestIdHeader: 'x-request-id' });
    const apollo = new ApolloServer<{ requestId: string; operation: OperationRecord }>({
      typeDefs: 'type Query { a: Int }',
      resolvers: { Query: { a: () => 1 } },
      logger: app.log,
      plugins: [
        operationRecordPlugin(),
        // The metrics stage of the server's pipeline (src/graphql/stages.ts) names the operation.
        { async requestDidStart({ contextValue }) { return { async didResolveOperation({ operation }) { noteResolved(contextValue.operation, operation); } }; } },
        logInternalErrors((details, message) => app.log.error(details, message)),
        { async requestDidStart() { return { async responseForOperation() { throw new RangeError('Maximum call stack size exceeded'); } }; } },
      ],
    });
    await apollo.start();
    app.post('/graphql', fastifyApolloHandler(apollo, { context: async (request) => ({ requestId: request.id, operation: recordOperation(request) }) }));
    try {
      const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query: 'query Thrown { a }' }, headers: { 'x-request-id': 'log-thrown' } });
      expect(response.statusCode).toBe(500);
      const mine = lines.of('log-thrown');
      expect(mine.map((line) => [line.level, line.msg])).toEqual([[50, 'internal error in a GraphQL request'], [30, 'request completed']]);
      expect(mine[0]?.error).toMatch(/^RangeError: Maximum call stack size exceeded/);
      expect(mine[1]).toMatchObject({ status: 500, operation: 'Thrown', graphqlErrors: 1 });
    } finally {
      await app.close();
      await apollo.stop();
    }
  });
});

describe('a request logger', () => {
  /** A parent logger counting the children made of it and the lines they write. */
  function parent() {
    const made = { children: 0, lines: [] as [string, Record<string, unknown>, unknown[]][] };
    const line = (bindings: Record<string, unknown>, level: string) => (...args: unknown[]) => { made.lines.push([level, bindings, args]); };
    const logger = {
      level: 'warn',
      child(bindings: Record<string, unknown>) {
        made.children++;
        return { ...Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((level) => [level, line(bindings, level)])), level: 'warn', child: () => logger };
      },
    };
    return { logger: logger as unknown as FastifyBaseLogger, made };
  }

  it('is made only when the request writes a line at an enabled level, once, with its bindings', () => {
    const { logger, made } = parent();
    const log = requestLoggerFactory('warn')(logger, { reqId: 'r1' }, {});
    log.info('not written');
    log.debug({ a: 1 }, 'nor this');
    expect(made.children).toBe(0);
    log.warn({ b: 2 }, 'written');
    log.error('and this');
    expect(made.children).toBe(1);
    expect(made.lines).toEqual([['warn', { reqId: 'r1' }, [{ b: 2 }, 'written']], ['error', { reqId: 'r1' }, ['and this']]]);
  });

  it('is pino\'s child at once for a route with a level of its own', () => {
    const { logger, made } = parent();
    requestLoggerFactory('warn')(logger, { reqId: 'r2' }, { level: 'debug' });
    expect(made.children).toBe(1);
  });
});
