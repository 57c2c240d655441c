// OpenTelemetry traces (src/tracing/, docs/operations.md "Traces"), with the
// SDK's in-memory exporter: the spans of a product page by POST on Apollo's
// path, on the fast path, and from the response cache; of a REST read; their
// names, parents and attributes; a caller's traceparent continued and the
// trace id in traceresponse and the log line; and no value (a variable, an
// id, a statement's text) in any attribute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type RunningTraces, startTraces, type TracesConfig } from '../../src/tracing/sdk.ts';
import { traces } from '../../src/tracing/spans.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestClient, GRAPHQL_ACCEPT, type TestClient, useTestCatalogue } from '../support/catalogue-app.ts';
import { CapturedLog } from '../support/captured-log.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { LegacyClient } from '../../src/legacy/legacy-client.ts';
import Fastify from 'fastify';
import { traceRequests } from '../../src/observability/request-traces.ts';
import { sseClient, subscribeSse } from '../support/live-clients.ts';

const catalogue = useTestCatalogue();

const QUERY = 'query Page($id: ID!) { product(id: $id) { id name features { feature value } styles { id photos { url } skus { size } } relatedIds } }';
/** Product ids no count or size in these tests reaches, so finding one in an attribute means a value leaked. */
const PRODUCT_ID = '311';
const OTHER_ID = '313';

const SAMPLE_ALL: TracesConfig = { url: 'http://127.0.0.1:1/v1/traces', headers: {}, sampler: 'parentbased_always_on', ratio: 1, serviceName: 'catalogue-api-test', resourceAttributes: {} };

const exporter = new InMemorySpanExporter();
let running: RunningTraces | undefined;
let client: TestClient | undefined;
const log = new CapturedLog();

beforeAll(async () => {
  running = await startTraces(SAMPLE_ALL, { exporter });
  client = await createTestClient(catalogue.db.url, { env: { GRAPHQL_JIT: 'on', CACHE: 'on', CACHE_ADMISSION: 'first-miss', LOG_LEVEL: 'info' }, logDestination: log });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await running?.shutdown();
});

/** Every span of the trace `traceId`, once its root (the HTTP request's) has ended. */
async function traceOf(traceId: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    if (spans.some((span) => span.kind === 1 /* SERVER */)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no server span of trace ${traceId}`);
}

/** The trace id in a response's traceresponse header (W3C Trace Context Level 2). */
function traceIdOf(headers: Record<string, unknown>): string {
  const header = String(headers.traceresponse);
  expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  return header.split('-')[1]!;
}

function postPage(headers: Record<string, string> = {}, id = PRODUCT_ID) {
  return client!.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT, ...headers }, payload: { query: QUERY, operationName: 'Page', variables: { id } } });
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const one = (spans: ReadableSpan[], name: string) => {
  const found = named(spans, name);
  expect(found.map((span) => span.name), `one span ${name} in ${spans.map((s) => s.name).join(', ')}`).toEqual([name]);
  return found[0]!;
};

/** No attribute holds the product id, the variables, the document or a statement's text. */
function expectNoValues(spans: ReadableSpan[]) {
  for (const span of spans) {
    for (const [key, value] of Object.entries(span.attributes)) {
      const text = String(value);
      for (const id of [PRODUCT_ID, OTHER_ID]) {
        expect(text, `${span.name} ${key}`).not.toBe(id);
        expect(text, `${span.name} ${key}`).not.toContain(`"${id}"`);
      }
      expect(text, `${span.name} ${key}`).not.toMatch(/\bSELECT\b.*\bFROM\b|\$1|product\(id/i);
    }
  }
}

/** The spans of a GraphQL product page: HTTP → operation → cost, cache lookup, execution → batch → pool wait and statement. */
function expectPageSpans(spans: ReadableSpan[], executed: boolean) {
  const http = one(spans, 'POST /graphql');
  expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/graphql', 'http.response.status_code': 200 });
  const operation = one(spans, 'query Page');
  expect(parentOf(operation)).toBe(http.spanContext().spanId);
  expect(operation.attributes).toMatchObject({ 'graphql.operation.name': 'Page', 'graphql.operation.type': 'query' });
  expect(operation.attributes['graphql.document.hash']).toMatch(/^[0-9a-f]{64}$/);
  const lookup = one(spans, 'cache.lookup');
  expect(parentOf(lookup)).toBe(operation.spanContext().spanId);
  expect(parentOf(one(spans, 'graphql.cost'))).toBe(operation.spanContext().spanId);
  if (!executed) {
    expect(lookup.attributes['catalogue.cache.outcome']).toBe('hit');
    expect(named(spans, 'graphql.execute')).toEqual([]);
    return;
  }
  expect(lookup.attributes['catalogue.cache.outcome']).toBe('miss');
  const execute = one(spans, 'graphql.execute');
  expect(parentOf(execute)).toBe(operation.spanContext().spanId);
  const batch = one(spans, 'dataloader.batch productPage');
  expect(parentOf(batch)).toBe(execute.spanContext().spanId);
  expect(batch.attributes).toMatchObject({ 'catalogue.dataloader.name': 'productPage', 'catalogue.dataloader.batch_size': 1 });
  const statement = one(spans, 'productPagesByIds');
  expect(statement.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.response.returned_rows': 1 });
  expect(parentOf(statement)).toBe(batch.spanContext().spanId);
  expect(parentOf(one(spans, 'pg.pool.connect'))).toBe(batch.spanContext().spanId);
  one(spans, 'cache.store');
}

describe('traces of a product page and a REST read', () => {
  it('are the same on Apollo\'s path and the fast path (Apollo parses and validates as well), and from the cache', async () => {
    const first = await postPage({ 'cache-control': 'no-cache' });
    expect(first.statusCode).toBe(200);
    const apollo = await traceOf(traceIdOf(first.headers));
    expectPageSpans(apollo, true);
    one(apollo, 'graphql.parse');
    one(apollo, 'graphql.validate');
    // Another product: not in the cache, so the fast path runs the query.
    const before = client!.server.fastPath!.answered;
    const second = await postPage({}, OTHER_ID);
    expect(client!.server.fastPath!.answered).toBe(before + 1);
    const fast = await traceOf(traceIdOf(second.headers));
    expectPageSpans(fast, true);
    const withoutApolloStages = (spans: ReadableSpan[]) => spans.map((span) => span.name).filter((name) => !name.startsWith('graphql.parse') && !name.startsWith('graphql.validate')).sort();
    expect(withoutApolloStages(fast)).toEqual(withoutApolloStages(apollo));
    const third = await postPage({}, OTHER_ID);
    expect(third.headers['x-cache']).toBe('hit');
    const hit = await traceOf(traceIdOf(third.headers));
    expectPageSpans(hit, false);
    expectNoValues([...apollo, ...fast, ...hit]);
  });

  it('of GET /products/:product_id/styles: its route template, the cache, the batch and the statement', async () => {
    const response = await client!.app.inject({ method: 'GET', url: `/products/${PRODUCT_ID}/styles` });
    expect(response.statusCode).toBe(200);
    const spans = await traceOf(traceIdOf(response.headers));
    const http = spans.find((span) => span.kind === 1)!;
    expect(http.name).toMatch(/^GET \/products\/:\w+\/styles$/);
    expect(http.attributes['http.route']).toMatch(/^\/products\/:\w+\/styles$/);
    expect(http.attributes['http.response.status_code']).toBe(200);
    expect(parentOf(one(spans, 'cache.lookup'))).toBe(http.spanContext().spanId);
    const statement = one(spans, 'productStylesByIds');
    expect(parentOf(statement)).toBe(one(spans, 'dataloader.batch productStyles').spanContext().spanId);
    expectNoValues(spans);
  });
});

describe('a request\'s own span', () => {
  it('ends with its status once sent, and ends marked aborted when its client leaves first', async () => {
    const app = Fastify();
    traceRequests(app, traces.tracer!);
    let held: (() => void) | undefined;
    app.get('/quick', async () => ({ ok: true }));
    app.get('/held', () => new Promise((resolve) => { held = () => resolve({ late: true }); }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const quick = await fetch(`http://127.0.0.1:${port}/quick`);
      expect(quick.status).toBe(200);
      const sent = one(await traceOf(traceIdOf({ traceresponse: quick.headers.get('traceresponse') })), 'GET /quick');
      expect(sent.attributes).toMatchObject({ 'http.route': '/quick', 'http.response.status_code': 200 });

      const leaving = new AbortController();
      const heldRequest = http.get({ host: '127.0.0.1', port, path: '/held', signal: leaving.signal });
      heldRequest.on('error', () => {});
      await expect.poll(() => held !== undefined).toBe(true);
      leaving.abort();
      await expect.poll(() => exporter.getFinishedSpans().some((span) => span.name === 'GET /held'), { timeout: 5_000 }).toBe(true);
      const aborted = exporter.getFinishedSpans().find((span) => span.name === 'GET /held')!;
      expect(aborted.attributes['catalogue.aborted']).toBe(true);
      expect(aborted.attributes['http.response.status_code']).toBeUndefined();
      held!();
    } finally {
      await app.close();
    }
  });
});

describe('a known query whose execution has errors', () => {
  it('is executed once: the fast path hands its result to Apollo to word, not the request to run again', async () => {
    const query = 'query Mixed($id: ID!, $bad: ID!) { product(id: $id) { id name } other: product(id: $bad) { id } }';
    const send = () => client!.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT },
      payload: { query, operationName: 'Mixed', variables: { id: PRODUCT_ID, bad: 'not-an-id' } } });
    // Answered by Apollo once, the document is the fast path's from then on.
    expect((await send()).statusCode).toBe(200);
    const response = await send();
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const spans = await traceOf(traceIdOf(response.headers));
    expect(named(spans, 'graphql.execute')).toHaveLength(1);
  });
});

describe('context', () => {
  it('continues a caller\'s traceparent, and names the trace in traceresponse and the log line', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const response = await postPage({ traceparent: `00-${traceId}-${parentId}-01` });
    expect(traceIdOf(response.headers)).toBe(traceId);
    const spans = await traceOf(traceId);
    const http = spans.find((span) => span.kind === 1)!;
    expect(parentOf(http)).toBe(parentId);
    expect(String(response.headers.traceresponse)).toBe(`00-${traceId}-${http.spanContext().spanId}-01`);
    const line = log.of(String(response.headers['x-request-id'])).find((entry) => entry.msg === 'request completed');
    expect(line?.traceId).toBe(traceId);
  });

  it('follows a caller that did not sample: nothing recorded, the trace id still answered', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    const ended = exporter.getFinishedSpans().length;
    const response = await postPage({ traceparent: `00-${traceId}-00f067aa0ba902b8-00` });
    expect(String(response.headers.traceresponse)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exporter.getFinishedSpans().slice(ended).filter((span) => span.spanContext().traceId === traceId)).toEqual([]);
  });
});

describe('subscriptions', () => {
  it('a change heard is a live.batch trace of its own, from the NOTIFY to the push, with each job and its statements', async () => {
    await client!.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client!.app.server.address() as AddressInfo;
    const sse = sseClient(`http://127.0.0.1:${address.port}`);
    const { received, dispose } = subscribeSse(sse, { query: 'subscription Live($ids: [ID!]!) { productChanged(ids: $ids) { id product { name } } }', variables: { ids: [PRODUCT_ID] }, operationName: 'Live' });
    try {
      await received.until((r) => r.latest(PRODUCT_ID) !== undefined, 10_000, 'the current state');
      const ended = exporter.getFinishedSpans().length;
      await catalogue.direct.rows(`UPDATE products SET name = 'Traced' WHERE id = $1`, [Number(PRODUCT_ID)]);
      await received.until((r) => r.latest(PRODUCT_ID)?.name === 'Traced', 10_000, 'the change');
      const spans = exporter.getFinishedSpans().slice(ended);
      const job = spans.find((span) => span.name === 'live.job Live')!;
      expect(job.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'Live', 'catalogue.live.subscribers': 1 });
      const batch = spans.find((span) => span.spanContext().spanId === parentOf(job))!;
      expect(batch.name).toBe('live.batch');
      expect(parentOf(batch)).toBeUndefined();
      const inTrace = spans.filter((span) => span.spanContext().traceId === batch.spanContext().traceId);
      expect(inTrace.some((span) => span.attributes['db.system.name'] === 'postgresql' && span.kind === 2 /* CLIENT */ && span.name !== 'pg.pool.connect')).toBe(true);
      expectNoValues(inTrace);
    } finally {
      dispose();
      await sse.dispose();
    }
  });
});

describe('the sidecar\'s legacy requests', () => {
  it('are client spans of the trace they serve, and carry its traceparent', async () => {
    const seen: (string | undefined)[] = [];
    const legacy = http.createServer((request, response) => {
      seen.push(request.headers.traceparent as string | undefined);
      response.setHeader('content-type', 'application/json').end('[]');
    });
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
    const legacyClient = new LegacyClient({ baseUrl: `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`, maxRps: 1000 });
    try {
      await trace.getTracer('test').startActiveSpan('request', async (span) => {
        await legacyClient.get('/products?page=1&count=5');
        span.end();
      });
      const parent = exporter.getFinishedSpans().find((span) => span.name === 'request')!;
      const attempt = exporter.getFinishedSpans().find((span) => span.name === 'GET' && parentOf(span) === parent.spanContext().spanId)!;
      expect(attempt.attributes).toMatchObject({ 'http.request.method': 'GET', 'server.address': '127.0.0.1', 'http.response.status_code': 200 });
      expect(seen).toEqual([`00-${attempt.spanContext().traceId}-${attempt.spanContext().spanId}-01`]);
      expectNoValues([attempt]);
    } finally {
      legacyClient.close();
      await new Promise((resolve) => legacy.close(resolve));
    }
  });
});

describe('with traces off', () => {
  it('reads no OTEL_* variable as on, nor OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true', () => {
    expect(loadConfig({}).traces).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x' }).traces).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).traces).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).traces).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.name=a%20b' }).traces).toEqual({
      url: 'http://collector:4318/v1/traces', headers: {}, sampler: 'parentbased_traceidratio', ratio: 0.05, serviceName: 'a b',
      resourceAttributes: { 'deployment.environment.name': 'prod', 'service.name': 'a b' },
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'shop', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo/otlp/v1/traces', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t' }).traces).toMatchObject({
      url: 'https://tempo/otlp/v1/traces', sampler: 'always_on', serviceName: 'shop', headers: { authorization: 'Bearer t' },
    });
  });

  it('loads no SDK module and registers no span hook', async () => {
    // This file's SDK is running; a fresh process shows what an API with traces off loads.
    expect(traces.tracer).toBeDefined();
    const { execFileSync } = await import('node:child_process');
    const script = `
      const { registerHooks } = await import('node:module');
      const resolved = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.push(result.url); return result; } });
      const { loadConfig } = await import('./src/config.ts');
      const { buildServer } = await import('./src/server.ts');
      const server = await buildServer(loadConfig({ LOG_LEVEL: 'silent', CACHE: 'off', RATE_LIMIT: 'off' }), ${JSON.stringify(catalogue.db.url)});
      await server.app.ready();
      const loaded = resolved.filter((url) => /@opentelemetry\\/(sdk-|exporter-|context-async-hooks|resources)/.test(url));
      const response = await server.app.inject({ method: 'GET', url: '/products/1/styles' });
      console.log(JSON.stringify({ loaded, traceresponse: response.headers.traceresponse ?? null }));
      await server.app.close();
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' }, encoding: 'utf8' });
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({ loaded: [], traceresponse: null });
  }, 60_000);
});
