// The benchmark's rows and the table made of them: one row per scenario,
// worker count, cache mode and load step, plus the baseline handler's row at
// each worker count and load step, which every other row is divided by.
import type { CacheMode } from './server-process.ts';
import { type Load, type Measurement, loadLabel } from './measurement.ts';
import { WRITE_SCENARIOS } from './plan.ts';

/** The scenario name of the baseline handler's rows. */
export const BASELINE = 'baseline';

export interface BenchRow extends Measurement {
  /** A k6/scenarios (or k6/wrk) name, or BASELINE. */
  scenario: string;
  workers: number;
  /** The API's response cache mode; null for the baseline handler. */
  cache: CacheMode | null;
  load: Load;
  /** Cache hits over lookups during the run; null with the cache off. */
  hitRatio: number | null;
  /** The generator's raw output for this run, relative to the results directory. */
  raw: string;
}

/** A row's figures divided by the baseline's at the same worker count and load. */
export interface Ratios {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
}

export function baselineFor(row: BenchRow, rows: readonly BenchRow[]): BenchRow | undefined {
  return rows.find((r) => r.scenario === BASELINE && r.workers === row.workers && loadLabel(r.load) === loadLabel(row.load));
}

/**
 * Null for the baseline itself, without a baseline row at that worker count
 * and load, and for a write scenario: the baseline handler reads, and a write
 * (a transaction with a WAL flush at its commit) divided by a read would not
 * be the cost of the API's own work.
 */
export function ratios(row: BenchRow, rows: readonly BenchRow[]): Ratios | null {
  const base = baselineFor(row, rows);
  if (!base || row.scenario === BASELINE || WRITE_SCENARIOS.has(row.scenario)) return null;
  return { rps: row.rps / base.rps, p50: row.p50 / base.p50, p95: row.p95 / base.p95, p99: row.p99 / base.p99 };
}

function loadSize(load: Load): number {
  return 'rate' in load ? load.rate : load.connections;
}

/** Rows grouped for reading: baseline first, then scenarios in `order`, each by workers, cache mode, load. */
export function sortRows(rows: readonly BenchRow[], order: readonly string[]): BenchRow[] {
  const rank = (scenario: string) => (scenario === BASELINE ? -1 : order.indexOf(scenario));
  const cacheRank = (cache: CacheMode | null) => ['off', 'memory', 'redis'].indexOf(cache ?? 'off');
  return [...rows].sort((a, b) => rank(a.scenario) - rank(b.scenario) || a.workers - b.workers
    || cacheRank(a.cache) - cacheRank(b.cache) || loadSize(a.load) - loadSize(b.load));
}

export const TABLE_HEADER = ['scenario', 'workers', 'cache', 'load', 'achieved/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors', 'dropped', 'SQL/req', 'hit ratio',
  'req/s vs base', 'p50 vs base', 'p95 vs base', 'p99 vs base'];

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const times = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`);

/** The table's cells, row by row, in TABLE_HEADER's order. */
export function tableCells(rows: readonly BenchRow[]): string[][] {
  return rows.map((row) => {
    const ratio = ratios(row, rows);
    return [
      row.scenario === BASELINE ? 'baseline (pg only)' : row.scenario,
      String(row.workers),
      row.cache ?? '-',
      loadLabel(row.load),
      fixed(row.rps, 0),
      fixed(row.p50, 2),
      fixed(row.p95, 2),
      fixed(row.p99, 2),
      `${(row.errors * 100).toFixed(2)}%`,
      String(row.dropped),
      row.sql === null ? '-' : row.sql.toFixed(2),
      row.hitRatio === null ? '-' : `${Math.round(row.hitRatio * 100)}%`,
      times(ratio?.rps), times(ratio?.p50), times(ratio?.p95), times(ratio?.p99),
    ];
  });
}

/** Aligned plain text for the terminal: the first column left, numbers right. */
export function textTable(rows: readonly BenchRow[]): string {
  const cells = [TABLE_HEADER, ...tableCells(rows)];
  const widths = TABLE_HEADER.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()).join('\n');
}

/** What the "vs base" columns mean, printed under the table. */
export const RATIO_NOTE = '"vs base": the row\'s figure divided by the baseline handler\'s (node:http + one pg query) at the same workers and load; '
  + '"-" for writes (the baseline reads)';

/** The same table in Markdown (table.md). */
export function markdownTable(rows: readonly BenchRow[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(TABLE_HEADER), line(TABLE_HEADER.map((_, i) => (i === 0 ? '---' : '---:'))), ...tableCells(rows).map(line)].join('\n');
}
