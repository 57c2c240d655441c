// GET /products?page=P&count=5 for random P up to the last page: a listing page.
// Env: BASE_URL, RATE, DURATION, PRODUCT_COUNT (products in the catalogue), CHECK_EVERY.
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, CHECK_EVERY, constantRate } from '../lib/config.ts';

const COUNT = 5;
const LAST_PAGE = Math.max(1, Math.ceil(Number(__ENV.PRODUCT_COUNT ?? 10_000) / COUNT));

export const options = {
  scenarios: { rest_products_page: constantRate() },
  thresholds: { http_req_failed: ['rate<0.01'], http_req_duration: ['p(99)<20'], checks: ['rate>0.99'] },
};

export default function () {
  const page = 1 + Math.floor(Math.random() * LAST_PAGE);
  const validate = __ITER % CHECK_EVERY === 0;
  const response = http.get(`${BASE_URL}/products?page=${page}&count=${COUNT}`, validate ? {} : { responseType: 'none' });
  check(response, { 'status 200': (r) => r.status === 200 });
  if (!validate) return;
  const body = JSON.parse(response.body as string) as { id: number; default_price: string; features?: unknown }[];
  check(body, {
    'a full page, except maybe the last': (b) => b.length === COUNT || page === LAST_PAGE,
    'ids ascend': (b) => b.every((p, i) => i === 0 || p.id > b[i - 1]!.id),
    'no features key, string prices': (b) => b.every((p) => p.features === undefined && /^\d+\.\d{2}$/.test(p.default_price)),
  });
}
