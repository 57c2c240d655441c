// Service levels the thresholds encode. Requests are told apart by their k6
// `name` tag (one per route or GraphQL operation, never per URL: a tag per
// random id would create a time series per id).

/** What the legacy service promised, checked in every profile. */
export const LEGACY_FLOOR = {
  /** Requests per second it must sustain: load runs at RATE (default 100) and fail if they cannot keep up. */
  ratePerSecond: 100,
  p95Ms: 2000,
  /** Share of failed requests (network errors, unexpected statuses). */
  errorRate: 0.01,
};

/** Share of checks that must pass; a check is a validated status, header or body. */
export const CHECKS_PASS_RATE = 0.99;

/** Share of the planned iterations an arrival-rate run must start (the rest were dropped: no VU was free). */
export const SERVED_SHARE = 0.99;

export const REQUESTS = {
  productsPage: (count: number) => `GET /products?page=:page&count=${count}`,
  product: 'GET /products/:id',
  styles: 'GET /products/:id/styles',
  related: 'GET /products/:id/related',
  updateProduct: 'PUT /products/:id',
  graphql: (operationName: string) => `POST /graphql ${operationName}`,
};

export interface ProjectTarget {
  /** The request's name tag. */
  request: string;
  p99Ms: number;
  /** Throughput the target asks for; checked by stress (and by load when RATE reaches it). */
  ratePerSecond?: number;
}

/** This project's targets, from the issue. */
export const PROJECT_TARGETS: ProjectTarget[] = [
  { request: REQUESTS.graphql('ProductWithStyles'), p99Ms: 50, ratePerSecond: 2000 },
  { request: REQUESTS.styles, p99Ms: 30, ratePerSecond: 3000 },
  { request: REQUESTS.productsPage(5), p99Ms: 20 },
];

export function targetsFor(requests: string[]): ProjectTarget[] {
  return PROJECT_TARGETS.filter((target) => requests.includes(target.request));
}
