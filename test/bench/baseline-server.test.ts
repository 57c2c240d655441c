// The benchmark's baseline handlers (bench/baseline-server.ts: the read-model
// floor, and the base-tables floor that assembles the JSON in Postgres)
// answer what the API answers for GET /products/:id/styles, including the
// legacy placeholders and unknown ids, with one SQL statement; so the
// rest-styles scenario measures them unchanged and the ratios compare like
// with like.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startBaseline } from '../../bench/lib/server-process.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

describe('baseline handler', () => {
  const catalogue = useTestCatalogue();
  const api = useTestClient(catalogue);
  let baseline: ServerProcess;
  let tables: ServerProcess;

  beforeAll(async () => {
    // Two cluster workers, as `npm run bench -- --workers 2` starts it.
    baseline = await startBaseline({ databaseUrl: catalogue.db.url, workers: 2, poolSize: 2 });
    tables = await startBaseline({ databaseUrl: catalogue.db.url, workers: 1, poolSize: 2, source: 'tables' });
  });
  afterAll(async () => {
    await baseline?.stop();
    await tables?.stop();
  });

  /** Product ids that cover every shape: ordinary, no styles, styles without photos, without skus, without a sale price. */
  async function interestingIds(): Promise<number[]> {
    const first = async (sql: string) => (await catalogue.direct.one<{ id: number }>(`${sql} ORDER BY 1 LIMIT 1`)).id;
    return [
      1, 2, 3,
      await first('SELECT p.id FROM products p WHERE NOT EXISTS (SELECT 1 FROM styles s WHERE s.product_id = p.id)'),
      await first('SELECT s.product_id AS id FROM styles s WHERE NOT EXISTS (SELECT 1 FROM photos ph WHERE ph.style_id = s.id)'),
      await first('SELECT s.product_id AS id FROM styles s WHERE NOT EXISTS (SELECT 1 FROM skus k WHERE k.style_id = s.id)'),
      await first('SELECT s.product_id AS id FROM styles s WHERE s.sale_price IS NULL'),
      await first('SELECT s.product_id AS id FROM styles s WHERE s.sale_price IS NOT NULL'),
    ];
  }

  it('answers the same JSON as the API, with one statement', async () => {
    const ids = await interestingIds();
    expect(new Set(ids).size).toBeGreaterThan(4);
    for (const id of ids) {
      const fromApi = await api.app.inject({ method: 'GET', url: `/products/${id}/styles` });
      for (const server of [baseline, tables]) {
        const response = await fetch(`${server.url}/products/${id}/styles`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(response.headers.get('x-sql-statements')).toBe('1');
        expect({ id, server: server.url, body: await response.json() }).toEqual({ id, server: server.url, body: JSON.parse(fromApi.body) });
      }
    }
  });

  it('answers 404 with the legacy error for an unknown product, and for other paths', async () => {
    const unknown = (await catalogue.direct.one<{ id: number }>('SELECT max(id) + 1000 AS id FROM products')).id;
    for (const server of [baseline, tables]) {
      const response = await fetch(`${server.url}/products/${unknown}/styles`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(JSON.parse((await api.app.inject({ method: 'GET', url: `/products/${unknown}/styles` })).body));
      expect((await fetch(`${server.url}/products/1`)).status).toBe(404);
    }
  });

  it('stops promptly with its workers on SIGTERM', async () => {
    const other = await startBaseline({ databaseUrl: catalogue.db.url, workers: 2, poolSize: 1 });
    expect(other.running()).toBe(true);
    const started = Date.now();
    await other.stop();
    expect(other.running()).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(fetch(`${other.url}/healthz`)).rejects.toThrow();
  });
});
