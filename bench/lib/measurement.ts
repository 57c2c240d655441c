// What one run of a load generator measured, whichever generator it was.

export interface Measurement {
  /** Requests completed. */
  requests: number;
  /** Achieved requests per second. */
  rps: number;
  /** Latency percentiles in milliseconds (NaN when the generator gave none). */
  p50: number;
  p95: number;
  p99: number;
  /** Failed requests (non-2xx/3xx answers and transport errors) over all requests, 0..1. */
  errors: number;
  /** Iterations an open-model generator could not start in time (k6); 0 for wrk. */
  dropped: number;
  /** SQL statements per request, when the generator recorded x-sql-statements. */
  sql: number | null;
}

/** How hard a run pushes: a constant arrival rate (k6) or a number of busy connections (wrk). */
export type Load = { rate: number } | { connections: number };

export function loadLabel(load: Load): string {
  return 'rate' in load ? `${load.rate}/s` : `${load.connections} conn`;
}
