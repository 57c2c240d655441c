// GET /products/:id/styles for random ids, the legacy product page's heaviest call.
// Env: BASE_URL, RATE, DURATION, ID_MIN, ID_MAX, CHECK_EVERY (see k6/lib/config.ts).
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { BASE_URL, CHECK_EVERY, constantRate, randomId } from '../lib/config.ts';

const sqlStatements = new Trend('sql_statements');

export const options = {
  scenarios: { rest_styles: constantRate() },
  thresholds: { http_req_failed: ['rate<0.01'], http_req_duration: ['p(99)<30'], checks: ['rate>0.99'] },
};

export default function () {
  const id = randomId();
  const validate = __ITER % CHECK_EVERY === 0;
  const response = http.get(`${BASE_URL}/products/${id}/styles`, validate ? {} : { responseType: 'none' });
  const statements = Number(response.headers['X-Sql-Statements']);
  if (Number.isFinite(statements)) sqlStatements.add(statements);
  check(response, { 'status 200 or 404': (r) => r.status === 200 || r.status === 404 });
  if (!validate || response.status !== 200) return;
  const body = JSON.parse(response.body as string) as { product_id: string; results: { original_price: string; 'default?': boolean }[] };
  check(body, {
    'product_id is the id, as a string': (b) => b.product_id === String(id),
    'prices have two decimals': (b) => b.results.every((s) => /^\d+\.\d{2}$/.test(s.original_price)),
    'default? is a boolean': (b) => b.results.every((s) => typeof s['default?'] === 'boolean'),
  });
}
