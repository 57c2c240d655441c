// The benchmark's floor: the least a server can do to answer
// GET /products/:id/styles. node:http, one pool of plain `pg` connections, one
// named prepared statement reading the product's styles document (the read
// model the API reads too, see prisma/migrations/*_style_documents), and the
// same legacy reshaping as the API (src/rest/shapes.ts): no Fastify, no
// GraphQL, no loaders, no cache. `npm run bench` measures it beside the API at
// the same load, so every figure of the API reads as a ratio to what the
// hardware and Postgres allow for the same work.
//
//   node bench/baseline-server.ts --database-url <postgres://…> --port <n> [--workers <n>] [--pool-size <n>]
//
// Its answers are the API's JSON (test/bench/baseline-server.test.ts),
// and it sends `x-sql-statements: 1`, so the k6 rest-styles scenario runs
// against it unchanged. It is a measuring stick, not part of the API: its SQL
// lives here rather than in src/catalog/queries.ts on purpose.
import cluster from 'node:cluster';
import http from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Style } from '../src/catalog/types.ts';
import { productStyles } from '../src/rest/shapes.ts';

/** A product's styles with photos and skus, or no row for an unknown product. */
const STYLES_DOCUMENT = `
  SELECT coalesce(d.styles, '[]'::json) AS styles
  FROM products p LEFT JOIN product_style_documents d ON d.product_id = p.id
  WHERE p.id = $1`;
const LEGACY = { campus: 'hr-rfp', emptyPlaceholders: true };

const STYLES_PATH = /^\/products\/(\d{1,9})\/styles$/;

function send(response: http.ServerResponse, status: number, body: string, statements: number): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-sql-statements': String(statements),
  });
  response.end(body);
}

function serve(databaseUrl: string, port: number, poolSize: number): void {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const server = http.createServer((request, response) => {
    // The pid tells the benchmark this process answered, not another on the same port.
    if (request.url === '/healthz') return send(response, 200, JSON.stringify({ status: 'ok', pid: process.pid }), 0);
    const match = STYLES_PATH.exec(request.url ?? '');
    if (!match) return send(response, 404, '{"error":"not found"}', 0);
    const id = Number(match[1]);
    pool.query<{ styles: Style[] }>({ name: 'styles', text: STYLES_DOCUMENT, values: [id] }).then(
      ({ rows }) => (rows[0]
        ? send(response, 200, JSON.stringify(productStyles(id, rows[0].styles, LEGACY)), 1)
        : send(response, 404, JSON.stringify({ error: `product ${id} not found` }), 1)),
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
} });
const workers = Number(values.workers);
if (!values['database-url'] || !Number.isInteger(Number(values.port)) || !Number.isInteger(workers) || workers < 1) {
  console.error('usage: node bench/baseline-server.ts --database-url <postgres://…> --port <n> [--workers <n>] [--pool-size <n>]');
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
  serve(values['database-url'], Number(values.port), Number(values['pool-size']));
}
