// One product with its styles, photos and skus, by random id, over POST /graphql.
// Env: BASE_URL, RATE, DURATION, ID_MIN, ID_MAX (see k6/lib/config.ts).
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { BASE_URL, CHECK_EVERY, constantRate, randomId } from '../lib/config.ts';

const sqlStatements = new Trend('sql_statements');

// Same text as ProductWithStyles in k6/operations.graphql (typed by codegen).
const QUERY = `query ProductWithStyles($id: ID!) {
  product(id: $id) {
    id
    name
    defaultPrice
    styles {
      id
      name
      originalPrice
      salePrice
      isDefault
      photos { url thumbnailUrl }
      skus { id size quantity }
    }
  }
}`;

export const options = {
  scenarios: { graphql_product_styles: constantRate() },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    http_req_duration: ['p(99)<50'],
    checks: ['rate>0.99'],
  },
};

const headers = { 'content-type': 'application/json' };
// Bodies that will not be validated are not even read into the script.
const validated = { headers };
const skipped = { headers, responseType: 'none' as const };

export default function () {
  const id = String(randomId());
  const validate = __ITER % CHECK_EVERY === 0;
  const response = http.post(`${BASE_URL}/graphql`, JSON.stringify({ query: QUERY, variables: { id } }), validate ? validated : skipped);
  const statements = Number(response.headers['X-Sql-Statements']);
  if (Number.isFinite(statements)) sqlStatements.add(statements);
  check(response, {
    'status 200': (r) => r.status === 200,
    'JSON response': (r) => String(r.headers['Content-Type'] ?? '').startsWith('application/json'),
  });
  if (!validate) return;
  // Parse once: k6 re-parses the body on every r.json() call.
  let body: { data?: { product: { id: string; styles: { originalPrice: string }[] } | null }; errors?: unknown } = {};
  try {
    body = JSON.parse(response.body as string);
  } catch { /* reported by the checks below */ }
  const product = body.data?.product;
  check(response, {
    'no errors': () => body.errors === undefined && body.data !== undefined,
    'the product asked for, or null': () => product === null || product?.id === id,
    'styles have prices with two decimals': () => (product?.styles ?? []).every((s) => /^\d+\.\d{2}$/.test(s.originalPrice)),
  });
}
