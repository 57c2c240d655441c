// Traces end to end: the API as a process (`node src/main.ts`) with only the
// standard variables set, exporting over OTLP/HTTP to a real receiver (the
// OpenTelemetry Collector's decoding: test/support/otlp-receiver.ts). A
// product page's trace arrives whole: the resource, the request's span with
// the caller's traceparent continued, and the statement under it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { GRAPHQL_ACCEPT, useTestCatalogue } from '../support/catalogue-app.ts';
import { OtlpReceiver, otlpReceiverAvailable } from '../support/otlp-receiver.ts';

const catalogue = useTestCatalogue();
// In CI (CI=true) Go is part of the machine (.ci/run): a missing one fails the test rather than skipping it.
const available = otlpReceiverAvailable() || process.env.CI === 'true';
if (!available) console.warn('Go is not installed: skipping test/observability/otlp-export.test.ts (it builds its OTLP receiver with Go)');

let receiver: OtlpReceiver | undefined;
let api: ApiProcess | undefined;

beforeAll(async () => {
  if (!available) return;
  receiver = await OtlpReceiver.start();
  api = await startApiProcess({
    DATABASE_URL: catalogue.db.url,
    CACHE: 'off',
    RATE_LIMIT: 'off',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0',
    OTEL_SERVICE_NAME: 'catalogue-e2e',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    // The batch processor's wait before an export (the SDK reads it): short, so the test does not wait 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
}, 600_000);

afterAll(async () => {
  await api?.stop();
  await receiver?.stop();
});

describe.skipIf(!available)('traces exported over OTLP/HTTP', () => {
  it('arrive at a collector: a caller\'s sampled trace, from the request to the statement, with the resource', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${api!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: GRAPHQL_ACCEPT, traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: JSON.stringify({ query: 'query Page($id: ID!) { product(id: $id) { name styles { name skus { size } } } }', variables: { id: '3' } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('traceresponse')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const spans = (await receiver!.waitFor((all) => all.some((span) => span.traceId === traceId && span.kind === 'Server')))
      .filter((span) => span.traceId === traceId);
    const server = spans.find((span) => span.kind === 'Server')!;
    expect(server).toMatchObject({ name: 'POST /graphql', parentSpanId: 'b7ad6b7169203331', attributes: { 'http.route': '/graphql', 'http.response.status_code': 200 } });
    expect(server.resource).toMatchObject({ 'service.name': 'catalogue-e2e', 'deployment.environment.name': 'test', 'telemetry.sdk.language': 'nodejs' });
    const operation = spans.find((span) => span.name === 'query Page')!;
    expect(operation.parentSpanId).toBe(server.spanId);
    const statement = spans.find((span) => span.attributes['db.system.name'] === 'postgresql' && span.kind === 'Client' && span.name !== 'pg.pool.connect');
    expect(statement?.attributes['db.response.returned_rows']).toBe(1);
  }, 60_000);

  it('sample no new trace at ratio 0, and still name one in traceresponse', async () => {
    const before = receiver!.spans.length;
    const response = await fetch(`${api!.url}/products/3/styles`);
    expect(response.status).toBe(200);
    expect(response.headers.get('traceresponse')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver!.spans.slice(before)).toEqual([]);
  });
});
