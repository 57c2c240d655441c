// node scripts/traces-cost.ts <database URL> [--requests 1000] [--rounds 3] [--otlp http://127.0.0.1:4318]
// node scripts/traces-cost.ts --spans [--otlp http://127.0.0.1:4318]
//
// What traces cost a product page (GraphQL by POST, the fast path) and REST
// styles, as the API's own CPU time per request, with traces off, on at the
// default 5% and on for every request, spans exported over OTLP/HTTP to the
// receiver at --otlp (so the export's work is counted). Each measurement is a
// fresh process (the API built in it, its cache off), warmed for 7 s, then
// --requests requests of each route one after another through Fastify's
// inject (no sockets: the HTTP server's own cost is the same in every mode,
// and what is left is the API's), its CPU time read with process.cpuUsage.
// The modes alternate within each round; the figures are the medians of the
// rounds. CPU per request rather than requests/s: on a shared host the rate
// follows the other tenants, the CPU a request takes much less so.
//
// --spans measures the tracing work alone, without the request around it:
// the calls a product page makes with traces on (its server span begun from
// the headers and made active, then ten spans under it as the page's
// operation, stages, batches, pool waits and statements open them, through
// src/tracing/spans.ts), sampled at 0, 5% and 100%, every span exported to
// --otlp by the SDK's batch processor (flushed every 100 requests, so no span
// is dropped and the export's serialisation is counted).
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { median } from '../bench/lib/median.ts';

const MODES = { off: {}, 'on, 5%': { OTEL_TRACES_SAMPLER_ARG: '0.05' }, 'on, 100%': { OTEL_TRACES_SAMPLER_ARG: '1' } } as const;
type Mode = keyof typeof MODES;
const QUERY = 'query ProductPageWithRelatedIds($id: ID!) { product(id: $id) { id name slogan description category defaultPrice features { feature value } styles { id name originalPrice salePrice isDefault photos { thumbnailUrl url } skus { id size quantity } } relatedIds } }';

/** A fixed sequence of product ids (the same in every mode), spread over the catalogue. */
function ids(count: number, max: number): number[] {
  let seed = 12345;
  return Array.from({ length: count }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 1 + (seed % max);
  });
}

/** In a child: builds the API, warms it, and prints the CPU µs per request of each route. */
async function child(databaseUrl: string, requests: number): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { buildServer } = await import('../src/server.ts');
  const { queryOnce } = await import('../src/db/pool/query-once.ts');
  const [{ max }] = await queryOnce<{ max: number }>(databaseUrl, 'SELECT max(id) AS max FROM products') as [{ max: number }];
  const server = await buildServer(loadConfig({ ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', CACHE: 'off', RATE_LIMIT: 'off' }), databaseUrl);
  await server.app.ready();
  const page = (id: number) => server.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: QUERY, variables: { id: String(id) } } });
  const styles = (id: number) => server.app.inject({ method: 'GET', url: `/products/${id}/styles` });
  const measure = async (send: (id: number) => Promise<{ statusCode: number }>, keys: number[]) => {
    const start = process.cpuUsage();
    for (const id of keys) if ((await send(id)).statusCode >= 500) throw new Error(`a request failed (${id})`);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / keys.length;
  };
  // Warmed for at least 7 s: the batch processor's first export (5 s after the
  // first span) loads and compiles the exporter's code, a cost paid once per
  // process that a short measurement would otherwise spread over its requests.
  const warmUntil = performance.now() + 7_000;
  while (performance.now() < warmUntil) {
    const warm = ids(100, max);
    await measure(page, warm);
    await measure(styles, warm);
  }
  const keys = ids(requests + 100, max).slice(100);
  const result = { page: await measure(page, keys), styles: await measure(styles, keys) };
  await server.app.close();
  console.log(JSON.stringify(result));
}

/** CPU µs per request of the tracing work of a product page (see --spans above), at `ratio`. */
async function spanWork(otlp: string, ratio: number, requests: number): Promise<number> {
  const { startTraces } = await import('../src/tracing/sdk.ts');
  const { childSpan, inSpan, traces, withSpan } = await import('../src/tracing/spans.ts');
  const { ROOT_CONTEXT, SpanKind, propagation } = await import('@opentelemetry/api');
  const running = await startTraces({ url: `${otlp}/v1/traces`, headers: {}, sampler: 'parentbased_traceidratio', ratio, serviceName: 'traces-cost', resourceAttributes: {} });
  const headers = { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json', 'content-length': '400' };
  const request = async () => {
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const span = traces.tracer!.startSpan('POST /graphql', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.route': '/graphql', 'url.scheme': 'http', 'catalogue.request_id': crypto.randomUUID() } }, parent);
    const { traceId, spanId, traceFlags } = span.spanContext();
    const header = `00-${traceId}-${spanId}-0${traceFlags & 1}`;
    await withSpan(span, () => inSpan('graphql', {}, async (operation) => {
      childSpan('graphql.cost', {})?.end();
      await inSpan('graphql.execute', {}, async () => {
        for (const name of ['productPage', 'productWithStyles']) {
          await inSpan(`dataloader.batch ${name}`, { 'catalogue.dataloader.name': name, 'catalogue.dataloader.batch_size': 1 }, async () => {
            await inSpan('pg.pool.connect', { 'db.system.name': 'postgresql' }, async () => undefined);
            const statement = childSpan(`${name}ByIds`, { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT' }, SpanKind.CLIENT);
            statement?.setAttribute('db.response.returned_rows', 1);
            statement?.end();
          });
        }
      });
      operation?.updateName('query ProductDetailPage');
      operation?.setAttributes({ 'graphql.operation.name': 'ProductDetailPage', 'graphql.operation.type': 'query' });
    }));
    span.setAttribute('http.response.status_code', 200);
    span.end();
    return header;
  };
  for (let i = 0; i < 2000; i++) await request();
  await running.flush();
  const start = process.cpuUsage();
  for (let i = 1; i <= requests; i++) {
    await request();
    if (i % 100 === 0) await running.flush();
  }
  await running.flush();
  const used = process.cpuUsage(start);
  await running.shutdown();
  return (used.user + used.system) / requests;
}


function main(databaseUrl: string, requests: number, rounds: number, otlp: string): void {
  const samples = new Map<Mode, { page: number; styles: number }[]>(Object.keys(MODES).map((mode) => [mode as Mode, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [mode, env] of Object.entries(MODES) as [Mode, Record<string, string>][]) {
      const tracing = mode === 'off' ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, ...env };
      const output = execFileSync(process.execPath, [import.meta.filename, databaseUrl, '--child', '--requests', String(requests)], {
        encoding: 'utf8', env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', ...tracing }, stdio: ['ignore', 'pipe', 'inherit'],
      });
      const sample = JSON.parse(output.trim().split('\n').at(-1)!) as { page: number; styles: number };
      samples.get(mode)!.push(sample);
      console.log(`round ${round}, traces ${mode}: product page ${sample.page.toFixed(0)} µs, REST styles ${sample.styles.toFixed(0)} µs CPU per request`);
    }
  }
  const off = samples.get('off')!;
  console.log('| traces | product page by POST: API CPU µs/request | vs off | REST styles: API CPU µs/request | vs off |\n| --- | --- | --- | --- | --- |');
  for (const [mode, list] of samples) {
    const page = median(list.map((s) => s.page));
    const styles = median(list.map((s) => s.styles));
    const ratio = (value: number, base: number) => `${((value / base - 1) * 100).toFixed(1)}%`;
    console.log(`| ${mode} | ${page.toFixed(0)} | ${mode === 'off' ? '' : ratio(page, median(off.map((s) => s.page)))} | ${styles.toFixed(0)} | ${mode === 'off' ? '' : ratio(styles, median(off.map((s) => s.styles)))} |`);
  }
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: {
  spans: { type: 'boolean', default: false },
  child: { type: 'boolean', default: false },
  requests: { type: 'string', default: '1000' },
  rounds: { type: 'string', default: '3' },
  otlp: { type: 'string', default: 'http://127.0.0.1:4318' },
} });
const databaseUrl = positionals[0];
if (values.spans) {
  for (let round = 1; round <= Number(values.rounds); round++) {
    const figures = [];
    for (const ratio of [0, 0.05, 1]) figures.push(`${ratio * 100}%: ${(await spanWork(values.otlp, ratio, 20_000)).toFixed(2)} µs`);
    console.log(`round ${round}, tracing work per request sampled at ${figures.join(', ')}`);
  }
  process.exit(0);
}
if (!databaseUrl) throw new Error('usage: node scripts/traces-cost.ts <database URL> [--requests 1000] [--rounds 3] [--otlp <receiver URL>]');
if (values.child) await child(databaseUrl, Number(values.requests));
else main(databaseUrl, Number(values.requests), Number(values.rounds), values.otlp);
