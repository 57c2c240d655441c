// The benchmark's floors: the least a server can do to answer
// GET /products/:id/styles. node:http, one pool of plain `pg` connections, one
// named prepared statement, and nothing else: no Fastify, no GraphQL, no
// loaders, no cache. Two of them (--source):
//
// - documents (the default): the statement reads the product's styles
//   document (the read model the API reads too, see
//   prisma/functions/refresh_product_style_documents.sql), and Node reshapes
//   it as the API does (src/rest/shapes.ts): a floor for the Node part;
// - tables: the statement assembles the legacy styles JSON in Postgres from
//   the base tables (styles, photos, skus), and Node sends its text as it
//   comes: what a hand-written service without a read model costs.
//
// `npm run bench` measures them beside the API at the same load, so every
// figure of the API reads as a ratio to what the hardware and Postgres allow
// for the same answer.
//
//   node bench/baseline-server.ts --database-url <postgres://…> --port <n> [--workers <n>] [--pool-size <n>] [--source documents|tables]
//
// Its answers are the API's JSON (test/bench/baseline-server.test.ts; the
// tables floor's whitespace is Postgres's), and it sends `x-sql-statements:
// 1`, so the rest-styles scenario runs against it unchanged. It is a
// measuring stick, not part of the API: its SQL lives here rather than in
// src/catalog/reads/queries.ts on purpose.
import cluster from 'node:cluster';
import http from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Style } from '../src/catalog/model/types.ts';
import { productStylesJson } from '../src/rest/shapes.ts';
import type { BaselineSource } from './lib/server-process.ts';

/** A product's styles with photos and skus, or no row for an unknown product. */
const STYLES_DOCUMENT = `
  SELECT coalesce(d.styles, '[]'::json) AS styles
  FROM products p LEFT JOIN product_style_documents d ON d.product_id = p.id
  WHERE p.id = $1`;
const LEGACY = { campus: 'hr-rfp', emptyPlaceholders: true };

/** The legacy styles answer of a product, assembled by Postgres from the base tables (with the live service's placeholders), or no row. */
const STYLES_FROM_TABLES = `
  SELECT json_build_object('product_id', p.id::text, 'results', coalesce((
    SELECT json_agg(json_build_object(
      'style_id', s.id, 'name', s.name, 'original_price', s.original_price::text, 'sale_price', s.sale_price::text, 'default?', s.is_default,
      'photos', coalesce((SELECT json_agg(json_build_object('thumbnail_url', ph.thumbnail_url, 'url', ph.url) ORDER BY ph.id)
                          FROM photos ph WHERE ph.style_id = s.id), '[{"thumbnail_url": null, "url": null}]'),
      'skus', coalesce((SELECT json_object_agg(k.id, json_build_object('quantity', k.quantity, 'size', k.size) ORDER BY k.id)
                        FROM skus k WHERE k.style_id = s.id), '{"null": {"quantity": null, "size": null}}')
    ) ORDER BY s.id) FROM styles s WHERE s.product_id = p.id), '[]'))::text AS body
  FROM products p
  WHERE p.id = $1`;


const STYLES_PATH = /^\/products\/(\d{1,9})\/styles$/;

function send(response: http.ServerResponse, status: number, body: string, statements: number): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-sql-statements': String(statements),
  });
  response.end(body);
}

/** The answer's body for product `id`, or undefined for an unknown product: one statement. */
function stylesBody(pool: pg.Pool, source: BaselineSource, id: number): Promise<string | undefined> {
  if (source === 'tables') {
    return pool.query<{ body: string }>({ name: 'styles', text: STYLES_FROM_TABLES, values: [id] }).then(({ rows }) => rows[0]?.body);
  }
  return pool.query<{ styles: Style[] }>({ name: 'styles', text: STYLES_DOCUMENT, values: [id] })
    .then(({ rows }) => (rows[0] ? productStylesJson(id, rows[0].styles, LEGACY) : undefined));
}

function serve(databaseUrl: string, port: number, poolSize: number, source: BaselineSource): void {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const server = http.createServer((request, response) => {
    // The pid tells the benchmark this process answered, not another on the same port.
    if (request.url === '/healthz') return send(response, 200, JSON.stringify({ status: 'ok', pid: process.pid }), 0);
    const match = STYLES_PATH.exec(request.url ?? '');
    if (!match) return send(response, 404, '{"error":"not found"}', 0);
    const id = Number(match[1]);
    stylesBody(pool, source, id).then(
      (body) => (body === undefined ? send(response, 404, JSON.stringify({ error: `product ${id} not found` }), 1) : send(response, 200, body, 1)),
      () => send(response, 500, '{"error":"internal server error"}', 1),
    );
  });
  // Fastify's default, so both servers keep the generator's connections alike.
  server.keepAliveTimeout = 72_000;
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}

const { values } = parseArgs({ options: {
  'database-url': { type: 'string' },
  port: { type: 'string' },
  workers: { type: 'string', default: '1' },
  'pool-size': { type: 'string', default: '10' },
  source: { type: 'string', default: 'documents' },
} });
const workers = Number(values.workers);
const source = values.source as BaselineSource;
if (!values['database-url'] || !Number.isInteger(Number(values.port)) || !Number.isInteger(workers) || workers < 1 || !['documents', 'tables'].includes(source)) {
  console.error('usage: node bench/baseline-server.ts --database-url <postgres://…> --port <n> [--workers <n>] [--pool-size <n>] [--source documents|tables]');
  process.exit(2);
}
if (workers > 1 && cluster.isPrimary) {
  // As the API does with WORKERS: N processes on one port.
  for (let i = 0; i < workers; i++) cluster.fork();
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    cluster.on('exit', () => { if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0); });
  });
} else {
  serve(values['database-url'], Number(values.port), Number(values['pool-size']), source);
}
