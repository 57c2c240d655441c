// The benchmark's rows and the table made of them: one row per scenario,
// worker count, cache mode and load step, plus the baseline handler's row at
// each worker count and load step, which every other row is divided by.
import type { CacheMode } from './server-process.ts';
import { type Load, type Measurement, loadLabel } from './measurement.ts';
import { WRITE_SCENARIOS } from './plan.ts';
import { SHOP_MIX_SCENARIO } from './shop-mix.ts';

/** The scenario name of the baseline handler's rows: the read-model floor, which the "vs base" columns divide by. */
export const BASELINE = 'baseline';
/** The base-tables floor's rows (bench/baseline-server.ts --source tables). */
export const BASELINE_TABLES = 'baseline-tables';
const FLOORS = new Set([BASELINE, BASELINE_TABLES]);
/** Scenarios whose rows have no ratios to the floors: a mix of requests is not the floors' one request. */
const UNLIKE_FLOORS = new Set([SHOP_MIX_SCENARIO]);

export interface BenchRow extends Measurement {
  /** A k6/scenarios (or k6/wrk) name, or BASELINE. */
  scenario: string;
  workers: number;
  /** The API's response cache mode; null for the baseline handler. */
  cache: CacheMode | null;
  load: Load;
  /** Cache hits over lookups during the run; null with the cache off. */
  hitRatio: number | null;
  /** The checkout of the API measured, when another than this one (--api-root: its folder's name). */
  api?: string;
  /** The generator's raw output for this run, relative to the results directory. */
  raw: string;
  /** Which of the plan's --runs this is (1-based); on a median row, how many runs it is the median of. */
  run?: number;
  runs?: number;
}

const middle = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

/**
 * One row per scenario, workers, cache, load and API: each figure the median
 * of its runs (each figure on its own, as the docs quote medians of three).
 */
export function medianRows(rows: readonly BenchRow[]): BenchRow[] {
  const groups = new Map<string, BenchRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.scenario, row.workers, row.cache, loadLabel(row.load), row.api ?? null]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()].map((group) => {
    const figure = (pick: (row: BenchRow) => number) => middle(group.map(pick));
    const sql = group.map((row) => row.sql).filter((value): value is number => value !== null);
    const hits = group.map((row) => row.hitRatio).filter((value): value is number => value !== null);
    const { run: _run, ...first } = group[0]!;
    return {
      ...first, runs: group.length,
      requests: figure((row) => row.requests), rps: figure((row) => row.rps),
      p50: figure((row) => row.p50), p95: figure((row) => row.p95), p99: figure((row) => row.p99),
      errors: figure((row) => row.errors), dropped: figure((row) => row.dropped),
      sql: sql.length > 0 ? middle(sql) : null, hitRatio: hits.length > 0 ? middle(hits) : null,
    };
  });
}

/** A row's figures divided by the baseline's at the same worker count and load. */
export interface Ratios {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
}

export function baselineFor(row: BenchRow, rows: readonly BenchRow[], floor = BASELINE): BenchRow | undefined {
  return rows.find((r) => r.scenario === floor && r.workers === row.workers && loadLabel(r.load) === loadLabel(row.load));
}

/**
 * Null for the baseline itself, without a baseline row at that worker count
 * and load, and for a write scenario: the baseline handler reads, and a write
 * (a transaction with a WAL flush at its commit) divided by a read would not
 * be the cost of the API's own work.
 */
export function ratios(row: BenchRow, rows: readonly BenchRow[]): Ratios | null {
  const base = baselineFor(row, rows);
  if (!base || FLOORS.has(row.scenario) || WRITE_SCENARIOS.has(row.scenario) || UNLIKE_FLOORS.has(row.scenario)) return null;
  return { rps: row.rps / base.rps, p50: row.p50 / base.p50, p95: row.p95 / base.p95, p99: row.p99 / base.p99 };
}

function loadSize(load: Load): number {
  return 'rate' in load ? load.rate : load.connections;
}

/** Rows grouped for reading: baseline first, then scenarios in `order`, each by workers, cache mode, load. */
export function sortRows(rows: readonly BenchRow[], order: readonly string[]): BenchRow[] {
  const rank = (scenario: string) => (scenario === BASELINE ? -2 : scenario === BASELINE_TABLES ? -1 : order.indexOf(scenario));
  const cacheRank = (cache: CacheMode | null) => ['off', 'memory', 'redis'].indexOf(cache ?? 'off');
  return [...rows].sort((a, b) => rank(a.scenario) - rank(b.scenario) || a.workers - b.workers
    || cacheRank(a.cache) - cacheRank(b.cache) || (a.api ?? '').localeCompare(b.api ?? '') || loadSize(a.load) - loadSize(b.load));
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
      row.scenario === BASELINE ? 'baseline (pg only)' : row.scenario === BASELINE_TABLES ? 'baseline (base tables)' : `${row.scenario}${row.api ? ` [${row.api}]` : ''}`,
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
export const RATIO_NOTE = '"vs base": the row\'s figure divided by the baseline handler\'s (node:http + one pg query of the read model) at the same workers and load; '
  + '"-" for writes (the baseline reads) and the shop mix';

/**
 * REST styles against both floors, a line per row: requests/s over the
 * read-model floor's (the Node part) and over the base-tables floor's (a
 * hand-written service assembling the JSON in Postgres), at the same workers
 * and load. Empty without REST styles rows.
 */
export function floorLines(rows: readonly BenchRow[]): string[] {
  return rows.filter((row) => row.scenario === 'rest-styles').map((row) => {
    const times = (floor: string, what: string) => {
      const base = baselineFor(row, rows, floor);
      return base ? `${(row.rps / base.rps).toFixed(2)}x the ${what} (${base.rps.toFixed(0)}/s)` : `no ${what} measured`;
    };
    return `rest-styles${row.api ? ` [${row.api}]` : ''} (${row.workers} worker${row.workers === 1 ? '' : 's'}, cache ${row.cache}, ${loadLabel(row.load)}): ${row.rps.toFixed(0)}/s, `
      + `${times(BASELINE, 'read-model floor')}, ${times(BASELINE_TABLES, 'base-tables floor')}`;
  });
}

/** The same table in Markdown (table.md). */
export function markdownTable(rows: readonly BenchRow[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(TABLE_HEADER), line(TABLE_HEADER.map((_, i) => (i === 0 ? '---' : '---:'))), ...tableCells(rows).map(line)].join('\n');
}
