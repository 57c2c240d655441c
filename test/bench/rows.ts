// Made-up benchmark rows for the report and chart tests.
import type { BenchRow } from '../../bench/lib/report.ts';

export function benchRow(row: Pick<BenchRow, 'scenario' | 'workers' | 'cache' | 'load' | 'rps' | 'p50' | 'p95' | 'p99'> & Partial<BenchRow>): BenchRow {
  return { requests: Math.round(row.rps * 15), errors: 0, dropped: 0, sql: null, hitRatio: null, raw: 'raw/x.json', ...row };
}
