// npm run bench:trace -- --database-url <url> [--id 500123] --save product-page-trace
//
// One real trace of the product page, as docs/operations.md shows it: the API
// (production, cache off) exporting every request's spans over OTLP/HTTP
// (OTEL_TRACES_SAMPLER=always_on) to the receiver of test/support/otlp-receiver
// (the OpenTelemetry Collector's own decoding, built with the machine's Go
// when missing); `ProductDetailPage`
// by POST for a few other products first (the pool's connections opened,
// the operation prepared), then for --id; its trace's spans, as received,
// with their provenance in docs/performance/<name>.json. The picture is drawn
// from that file by scripts/trace-waterfall.ts; operations.md renders the
// span table from it (scripts/render-performance.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { operationsByName } from '../k6/lib/operation-text.ts';
import { loadedCatalogue } from '../bench/lib/catalogue.ts';
import { endProvenance, publish, savedName, startProvenance } from '../bench/lib/provenance.ts';
import { startApi } from '../bench/lib/server-process.ts';
import { OtlpReceiver } from '../test/support/otlp-receiver.ts';

/** Requests for other products before the one traced. */
const WARM_UP = 20;

const { values } = parseArgs({ options: { 'database-url': { type: 'string' }, id: { type: 'string', default: '500123' }, save: { type: 'string' } } });
const databaseUrl = values['database-url'];
if (!databaseUrl) throw new Error('--database-url <a loaded catalogue> is required');
const save = savedName(values.save);
const catalogue = await loadedCatalogue(databaseUrl);
const provenance = startProvenance('bench:trace', process.argv.slice(2), { products: catalogue.products, id: values.id });
const query = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../k6/operations.graphql'), 'utf8')).get('ProductDetailPage')!;

const receiver = await OtlpReceiver.start();
try {
  const api = await startApi({ databaseUrl, workers: 1, cache: 'off', env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=bench',
  } });
  let traceId: string | undefined;
  try {
    const page = async (id: number | string) => {
      const response = await fetch(`${api.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { id: String(id) }, operationName: 'ProductDetailPage' }) });
      if (response.status !== 200) throw new Error(`ProductDetailPage answered ${response.status}`);
      await response.arrayBuffer();
      return response.headers.get('traceresponse');
    };
    for (let i = 1; i <= WARM_UP; i++) await page(Math.ceil((catalogue.maxId * i) / (WARM_UP + 1)));
    traceId = (await page(values.id))?.split('-')[1];
  } finally {
    await api.stop();
  }
  if (!traceId) throw new Error('the traced request had no traceresponse header');
  // The API flushed its spans as it stopped; the receiver has them once the request's own (the root) is in.
  const spans = (await receiver.waitFor((all) => all.some((span) => span.traceId === traceId && span.parentSpanId === ''))).filter((span) => span.traceId === traceId);
  console.log(`${spans.length} spans of trace ${traceId}: ${spans.map((span) => span.name).join(', ')}`);
  if (save) console.log(`saved to ${publish(save, { provenance: endProvenance(provenance), spans })}`);
} finally {
  await receiver.stop();
}
