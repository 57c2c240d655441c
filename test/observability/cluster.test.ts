// WORKERS=2 (node:cluster): requests spread over both workers (their log
// lines carry different pids), and /metrics, whichever worker answers it,
// counts all of them.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { Scrape } from '../support/prometheus.ts';

/** In production /metrics needs the admin token. */
const ADMIN_TOKEN = 'cluster-test-admin-token';
const WORKERS = 2;

/** GET on a new connection each time, so the cluster's round robin hands it to the next worker. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

let database: TestDatabase;
let server: ChildProcess;
let base: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  let pending = '';
  const onStdout = (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) logLines.push(JSON.parse(line) as Record<string, unknown>);
  };
  // Up when every worker has said it is listening.
  const listening = () => new Set(logLines.filter((line) => String(line.msg).startsWith('Server listening')).map((line) => line.pid)).size;
  const api = await startApiProcess(
    { DATABASE_URL: database.url, WORKERS: String(WORKERS), LOG_LEVEL: 'info', ADMIN_TOKEN },
    { onStdout, stderr: 'inherit', condition: () => listening() >= WORKERS },
  );
  server = api.child;
  base = api.url;
  expect(listening()).toBe(WORKERS);
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
});

it('/metrics on any worker counts the requests every worker served', async () => {
  const REQUESTS = 10;
  for (let i = 0; i < REQUESTS; i++) {
    expect((await get(`${base}/products/1`, { 'x-request-id': `cluster-${i}` })).status).toBe(404);
  }
  // The requests really were spread: a single worker's count could not say 10.
  const servedBy = new Set(logLines.filter((line) => String(line.reqId).startsWith('cluster-')).map((line) => line.pid));
  expect(servedBy.size).toBe(WORKERS);

  const labels = { method: 'GET', route: '/products/:product_id', status: '404' };
  // Consecutive new connections alternate between the workers, so these scrapes are answered by both.
  for (let i = 0; i < 4; i++) {
    const response = await get(`${base}/metrics`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(response.status).toBe(200);
    const metrics = new Scrape(response.body);
    expect(metrics.sum('http_requests_total', labels)).toBe(REQUESTS);
    expect(metrics.sum('http_request_duration_seconds_count', labels)).toBe(REQUESTS);
    expect(metrics.sum('pg_pool_connections', { pool: 'catalogue' })).toBeGreaterThanOrEqual(WORKERS);
    expect(metrics.matching('nodejs_eventloop_lag_seconds')).toHaveLength(1);
    // The earlier scrapes, wherever they were served, are counted too.
    expect(metrics.sum('http_requests_total', { route: '/metrics' })).toBe(i);
  }
}, 60_000);
