// GET /metrics after real REST and GraphQL requests: every counter moves by
// exactly the requests made, labelled by route pattern and operation name
// (bounded), and the SQL, DataLoader, cache, pool and process series are there
// with plausible values.
import { describe, expect, it } from 'vitest';
import { createTestClient, useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { Scrape } from '../support/prometheus.ts';

const catalogue = useTestCatalogue();
// The in-process response cache, so hits and misses are counted too.
const client = useTestClient(catalogue, { env: { CACHE: 'on' } });

async function scrape(target: TestClient = client): Promise<Scrape> {
  const response = await target.app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Scrape(response.body);
}

/** What the responses themselves said: SQL statements and cache results, by kind. */
class Tally {
  statements = 0;
  readonly cache = new Map<string, number>();
  add(kind: 'rest' | 'graphql', headers: Record<string, unknown>): void {
    this.statements += Number(headers['x-sql-statements']);
    const result = headers['x-cache'];
    if (typeof result === 'string') this.cache.set(`${kind} ${result}`, (this.cache.get(`${kind} ${result}`) ?? 0) + 1);
  }
}

describe('/metrics', () => {
  it('counts REST and GraphQL requests exactly, by route pattern, status and operation name', async () => {
    const before = await scrape();
    const tally = new Tally();
    for (const id of [1, 2, 3]) {
      const response = await client.app.inject({ method: 'GET', url: `/products/${id}/styles` });
      expect(response.statusCode).toBe(200);
      tally.add('rest', response.headers);
    }
    const missing = await client.app.inject({ method: 'GET', url: '/products/99999999' });
    expect(missing.statusCode).toBe(404);
    tally.add('rest', missing.headers);
    const named = 'query MetricsProduct($id: ID!) { product(id: $id) { name features { feature } } }';
    for (const response of [await client.post(named, { id: '1' }), await client.post(named, { id: '1' }), await client.post('{ product(id: "2") { name } }')]) {
      expect(response.status, response.raw).toBe(200);
      tally.add('graphql', response.headers);
    }
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => after.sum(name, labels) - before.sum(name, labels);

    const styles = { method: 'GET', route: '/products/:product_id/styles', status: '200' };
    expect(delta('http_requests_total', styles)).toBe(3);
    expect(delta('http_request_duration_seconds_count', styles)).toBe(3);
    expect(delta('http_request_duration_seconds_bucket', { ...styles, le: '+Inf' })).toBe(3);
    expect(delta('http_request_duration_seconds_sum', styles)).toBeGreaterThan(0);
    expect(delta('http_request_duration_seconds_sum', styles)).toBeLessThan(30);
    expect(delta('http_requests_total', { method: 'GET', route: '/products/:product_id', status: '404' })).toBe(1);
    expect(delta('http_requests_total', { method: 'POST', route: '/graphql', status: '200' })).toBe(3);
    // Route patterns only: no raw URL (with its ids) ever becomes a label.
    for (const sample of after.matching('http_requests_total')) expect(sample.labels.route).not.toMatch(/\/\d/);

    expect(delta('graphql_operations_total', { operation: 'MetricsProduct', type: 'query' })).toBe(2);
    expect(delta('graphql_operations_total', { operation: 'anonymous', type: 'query' })).toBe(1);
    expect(delta('graphql_operation_duration_seconds_count', { operation: 'MetricsProduct', type: 'query' })).toBe(2);
    expect(delta('graphql_operation_errors_total', {})).toBe(0);

    // REST styles: one productStyles batch of one key per (missed) product.
    expect(delta('dataloader_batch_size_count', { loader: 'productStyles' })).toBe(3);
    expect(delta('dataloader_batch_size_sum', { loader: 'productStyles' })).toBe(3);
    expect(delta('dataloader_batch_size_count', { loader: 'features' })).toBeGreaterThan(0);

    // The per-request histogram adds up to what the x-sql-statements headers said.
    expect(tally.statements).toBeGreaterThan(0);
    expect(delta('sql_statements_per_request_sum', {})).toBe(tally.statements);
    expect(delta('sql_statements_per_request_count', { route: '/products/:product_id/styles' })).toBe(3);
    expect(delta('sql_statements_total', {})).toBeGreaterThanOrEqual(tally.statements);

    // Cache results as the x-cache headers reported them (the repeated GraphQL query was a hit).
    expect(tally.cache.get('graphql hit')).toBe(1);
    for (const kind of ['rest', 'graphql']) {
      for (const result of ['hit', 'miss', 'shared']) {
        expect(delta('response_cache_requests_total', { kind, result }), `${kind} ${result}`).toBe(tally.cache.get(`${kind} ${result}`) ?? 0);
      }
    }
  });

  it('labels requests that match no route "unmatched", never with their URL', async () => {
    const before = await scrape();
    const response = await client.app.inject({ method: 'GET', url: '/no/such/page-4711' });
    expect(response.statusCode).toBe(404);
    const after = await scrape();
    expect(after.sum('http_requests_total', { route: 'unmatched', status: '404' }) - before.sum('http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(after.text).not.toContain('4711');
  });

  it('counts GraphQL errors, and requests that never reached an operation as "invalid"', async () => {
    const before = await scrape();
    expect((await client.post('{ product(id: "abc") { id } }')).status).toBe(200);
    expect((await client.post('{ noSuchField }')).status).toBe(400);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => after.sum(name, labels) - before.sum(name, labels);
    expect(delta('graphql_operation_errors_total', { operation: 'anonymous', type: 'query' })).toBe(1);
    expect(delta('graphql_operations_total', { operation: 'invalid', type: 'invalid' })).toBe(1);
    expect(delta('graphql_operation_errors_total', { operation: 'invalid', type: 'invalid' })).toBe(1);
  });

  it('exposes pool gauges, the SQL total, cache errors and the process metrics (event-loop lag)', async () => {
    await client.app.inject({ method: 'GET', url: '/products/4' });
    // Event-loop delay percentiles cover the time since the previous scrape: give them a few samples.
    await new Promise((r) => setTimeout(r, 100));
    const metrics = await scrape();
    const total = metrics.sum('pg_pool_connections', { pool: 'catalogue' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(10);
    expect(metrics.sum('pg_pool_idle_connections', { pool: 'catalogue' })).toBeLessThanOrEqual(total);
    expect(metrics.matching('pg_pool_waiting_requests', { pool: 'catalogue' })).toHaveLength(1);
    expect(metrics.sum('sql_statements_total')).toBeGreaterThan(0);
    expect(metrics.matching('response_cache_errors_total')).toEqual([{ name: 'response_cache_errors_total', labels: {}, value: 0 }]);
    expect(metrics.matching('nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(metrics.sum('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(metrics.sum('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metrics.types.get('http_request_duration_seconds')).toBe('histogram');
    expect(metrics.types.get('http_requests_total')).toBe('counter');
    expect(metrics.types.get('pg_pool_connections')).toBe('gauge');
  });

  it('caps distinct operation names: names past METRICS_MAX_OPERATION_NAMES are counted as "other"', async () => {
    const capped = await createTestClient(catalogue.db.url, { env: { METRICS_MAX_OPERATION_NAMES: '2' } });
    try {
      for (const name of ['First', 'Second', 'Third', 'Fourth', 'First']) {
        expect((await capped.post(`query ${name} { product(id: "1") { id } }`)).status).toBe(200);
      }
      const metrics = await scrape(capped);
      expect(metrics.sum('graphql_operations_total', { operation: 'First' })).toBe(2);
      expect(metrics.sum('graphql_operations_total', { operation: 'Second' })).toBe(1);
      expect(metrics.sum('graphql_operations_total', { operation: 'other' })).toBe(2);
      expect(metrics.matching('graphql_operations_total', { operation: 'Third' })).toEqual([]);
    } finally {
      await capped.close();
    }
  });
});
