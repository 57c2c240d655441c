// npm run bench's arithmetic and parsing, on made-up figures: the command
// line, the generators' outputs, ratios to the baseline, the table.
import { describe, expect, it } from 'vitest';
import { k6Measurement } from '../../bench/lib/k6.ts';
import { durationSeconds, estimatedSeconds, measuredRuns, parsePlan } from '../../bench/lib/plan.ts';
import { BASELINE, BASELINE_TABLES, type BenchRow, floorLines, markdownTable, ratios, sortRows, textTable } from '../../bench/lib/report.ts';
import { wrkMeasurement } from '../../bench/lib/wrk.ts';
import { benchRow } from './rows.ts';

describe('the command line', () => {
  it('defaults: k6, 1 and 2 workers, three rates, cache off, the k6 scenarios, within 15 minutes', () => {
    const plan = parsePlan([]);
    expect(plan.generator).toBe('k6');
    expect(plan.workers).toEqual([1, 2]);
    expect(plan.loads).toEqual([{ rate: 500 }, { rate: 1000 }, { rate: 2000 }]);
    expect(plan.cacheModes).toEqual(['off']);
    expect(plan.scenarios).toEqual(['graphql-product-styles', 'graphql-product-page', 'graphql-product-page-cards', 'rest-styles', 'rest-products-page']);
    // 5 scenarios + the two floors (REST styles is among them), at 2 worker counts and 3 rates.
    expect(measuredRuns(plan)).toBe(42);
    expect(estimatedSeconds(plan)).toBeLessThan(900);
  });

  it('takes lists with commas or repeated flags', () => {
    const plan = parsePlan(['--workers', '2,1', '--cache', 'off', '--cache', 'memory,redis', '--generator', 'wrk', '--connections', '8,2', '--scenario', 'rest-styles,graphql-apq']);
    expect(plan.workers).toEqual([1, 2]);
    expect(plan.cacheModes).toEqual(['off', 'memory', 'redis']);
    expect(plan.loads).toEqual([{ connections: 2 }, { connections: 8 }]);
    expect(plan.scenarios).toEqual(['rest-styles', 'graphql-apq']);
  });

  it('rejects bad values with what was expected', () => {
    expect(() => parsePlan(['--workers', '0'])).toThrow(/--workers must be positive integers/);
    expect(() => parsePlan(['--cache', 'disk'])).toThrow(/--cache must be off, memory, redis/);
    expect(() => parsePlan(['--duration', 'soon'])).toThrow(/--duration/);
    expect(() => parsePlan(['--scenario', 'graphql-apq'])).toThrow(/needs --generator wrk/);
    expect(() => parsePlan(['--setting', 'cache admission'])).toThrow(/--setting must be NAME=VALUE/);
  });

  it('measures the API again for each --setting, counted in the plan', () => {
    const plain = parsePlan(['--generator', 'wrk', '--scenario', 'shop-mix', '--cache', 'redis', '--workers', '1', '--connections', '10']);
    const plan = parsePlan(['--generator', 'wrk', '--scenario', 'shop-mix', '--cache', 'redis', '--workers', '1', '--connections', '10',
      '--setting', 'CACHE_ADMISSION=first-miss', '--setting', 'CACHE_ADMISSION=second-miss']);
    expect(plan.settings).toEqual([{ CACHE_ADMISSION: 'first-miss' }, { CACHE_ADMISSION: 'second-miss' }]);
    // The baseline once, the shop mix three times (this API, then each setting).
    expect(measuredRuns(plain)).toBe(2);
    expect(measuredRuns(plan)).toBe(4);
  });

  it('runs the write scenario only by name, with either generator, after the reads', () => {
    expect(parsePlan(['--generator', 'wrk']).scenarios).not.toContain('rest-update-features');
    const wrk = parsePlan(['--generator', 'wrk', '--connections', '50', '--scenario', 'rest-update-features,rest-styles']);
    expect(wrk.scenarios).toEqual(['rest-styles', 'rest-update-features']);
    expect(parsePlan(['--scenario', 'rest-update-features']).scenarios).toEqual(['rest-update-features']);
    expect(() => parsePlan(['--scenario', 'rest-update'])).toThrow(/unknown scenario rest-update; known: .*rest-update-features/);
  });

  it('reads k6 durations', () => {
    expect(durationSeconds('15s')).toBe(15);
    expect(durationSeconds('1m30s')).toBe(90);
    expect(durationSeconds('20')).toBe(20);
    expect(durationSeconds('15 s')).toBeNaN();
  });
});

describe('generator outputs', () => {
  it('k6: requests, rate, percentiles, failures, dropped iterations, SQL per request', () => {
    const measured = k6Measurement({
      http_reqs: { count: 3000, rate: 998.7 },
      http_req_duration: { avg: 3, med: 1.5, 'p(95)': 7.25, 'p(99)': 12.5, max: 40 },
      http_req_failed: { passes: 3, fails: 2997, value: 0.001 },
      dropped_iterations: { count: 4, rate: 1.3 },
      sql_statements: { avg: 1, med: 1 },
    });
    expect(measured).toEqual({ requests: 3000, rps: 998.7, p50: 1.5, p95: 7.25, p99: 12.5, errors: 0.001, dropped: 4, sql: 1 });
  });

  it('wrk: the report line (microseconds) in milliseconds, every kind of error counted', () => {
    const output = `Running 10s test @ http://127.0.0.1:1\n  1 threads and 16 connections\nWRK_REPORT {"requests":20000,"duration_us":10000000,"errors":{"connect":0,"read":1,"write":0,"status":3,"timeout":1},"latency_us":{"p50":820,"p95":2400,"p99":5100,"mean":950.5,"max":30000}}\n`;
    const measured = wrkMeasurement(output);
    expect(measured.rps).toBe(2000);
    expect([measured.p50, measured.p95, measured.p99]).toEqual([0.82, 2.4, 5.1]);
    expect(measured.errors).toBeCloseTo(5 / 20000);
    expect(measured.sql).toBeNull();
  });

  it('wrk: a body the scenario\'s checks refused counts as a failed request', () => {
    const output = 'WRK_REPORT {"requests":1000,"duration_us":1000000,"errors":{"connect":0,"read":0,"write":0,"status":0,"timeout":0},"bodies":{"checked":100,"bad":2},"latency_us":{"p50":820,"p95":2400,"p99":5100,"mean":950.5,"max":30000}}\n';
    expect(wrkMeasurement(output).errors).toBeCloseTo(2 / 1000);
  });

  it('wrk: output without the report line is an error, not zeros', () => {
    expect(() => wrkMeasurement('Requests/sec: 100\n')).toThrow(/report line/);
  });
});

describe('ratios to the baseline and the table', () => {
  const rows: BenchRow[] = [
    benchRow({ scenario: 'rest-styles', workers: 1, cache: 'off', load: { rate: 1000 }, rps: 900, p50: 4, p95: 10, p99: 30, sql: 1 }),
    benchRow({ scenario: BASELINE, workers: 1, cache: null, load: { rate: 1000 }, rps: 1000, p50: 1, p95: 2, p99: 5, sql: 1 }),
    benchRow({ scenario: BASELINE, workers: 2, cache: null, load: { rate: 1000 }, rps: 1000, p50: 2, p95: 4, p99: 10 }),
    benchRow({ scenario: 'rest-styles', workers: 2, cache: 'redis', load: { rate: 1000 }, rps: 1000, p50: 1, p95: 2, p99: 5, hitRatio: 0.987 }),
    benchRow({ scenario: 'rest-styles', workers: 2, cache: 'redis', load: { rate: 2000 }, rps: 1500, p50: 1, p95: 2, p99: 5 }),
  ];

  it('divides by the baseline at the same worker count and load', () => {
    expect(ratios(rows[0]!, rows)).toEqual({ rps: 0.9, p50: 4, p95: 5, p99: 6 });
    expect(ratios(rows[3]!, rows)).toEqual({ rps: 1, p50: 0.5, p95: 0.5, p99: 0.5 });
    // No baseline at 2,000/s: no ratio rather than a wrong one.
    expect(ratios(rows[4]!, rows)).toBeNull();
    expect(ratios(rows[1]!, rows)).toBeNull();
  });

  it('prints the baseline first, then each scenario by workers and load, with every column', () => {
    const lines = textTable(sortRows(rows, ['rest-styles'])).split('\n');
    expect(lines[0]).toMatch(/^scenario\s+workers\s+cache\s+load\s+achieved\/s\s+p50 ms\s+p95 ms\s+p99 ms\s+errors\s+dropped\s+SQL\/req\s+hit ratio\s+req\/s vs base\s+p50 vs base\s+p95 vs base\s+p99 vs base$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 4).join(' '))).toEqual([
      'baseline (pg only) 1 - 1000/s',
      'baseline (pg only) 2 - 1000/s',
      'rest-styles 1 off 1000/s',
      'rest-styles 2 redis 1000/s',
      'rest-styles 2 redis 2000/s',
    ]);
    expect(lines[3]).toMatch(/900\s+4\.00\s+10\.00\s+30\.00\s+0\.00%\s+0\s+1\.00\s+-\s+0\.90x\s+4\.00x\s+5\.00x\s+6\.00x$/);
    expect(lines[4]).toMatch(/99%\s+1\.00x\s+0\.50x\s+0\.50x\s+0\.50x$/);
    expect(lines[5]).toMatch(/-\s+-\s+-\s+-$/);
  });

  it('gives a write scenario no ratios: the baseline handler reads', () => {
    const write = benchRow({ scenario: 'rest-update-features', workers: 1, cache: 'off', load: { rate: 1000 }, rps: 980, p50: 9, p95: 20, p99: 41, sql: 4 });
    const withWrite = [...rows, write];
    expect(ratios(write, withWrite)).toBeNull();
    const line = textTable(sortRows(withWrite, ['rest-styles', 'rest-update-features'])).split('\n').at(-1)!;
    expect(line).toMatch(/^rest-update-features\s+1\s+off\s+1000\/s\s+980\s+9\.00\s+20\.00\s+41\.00\s+0\.00%\s+0\s+4\.00\s+-\s+-\s+-\s+-\s+-$/);
  });

  it('gives the shop mix no ratios, and says how REST styles compares with both floors', () => {
    const mix = benchRow({ scenario: 'shop-mix', workers: 1, cache: 'redis', load: { rate: 1000 }, rps: 990, p50: 3, p95: 8, p99: 15 });
    const tables = benchRow({ scenario: BASELINE_TABLES, workers: 1, cache: null, load: { rate: 1000 }, rps: 600, p50: 2, p95: 3, p99: 6 });
    const all = [...rows, mix, tables];
    expect(ratios(mix, all)).toBeNull();
    expect(ratios(tables, all)).toBeNull();
    const sorted = sortRows(all, ['rest-styles', 'shop-mix']);
    expect(sorted.slice(0, 3).map((r) => r.scenario)).toEqual([BASELINE, BASELINE, BASELINE_TABLES]);
    expect(textTable(sorted).split('\n')[3]).toMatch(/^baseline \(base tables\)\s+1\s+-\s+1000\/s\s+600\s/);
    expect(floorLines(sorted)).toEqual([
      'rest-styles (1 worker, cache off, 1000/s): 900/s, 0.90x the read-model floor (1000/s), 1.50x the base-tables floor (600/s)',
      'rest-styles (2 workers, cache redis, 1000/s): 1000/s, 1.00x the read-model floor (1000/s), no base-tables floor measured',
      'rest-styles (2 workers, cache redis, 2000/s): 1500/s, no read-model floor measured, no base-tables floor measured',
    ]);
  });

  it('writes the same table in Markdown', () => {
    const markdown = markdownTable(sortRows(rows, ['rest-styles'])).split('\n');
    expect(markdown).toHaveLength(2 + rows.length);
    expect(markdown[1]).toBe(`| --- |${' ---: |'.repeat(15)}`);
    expect(markdown[4]).toBe('| rest-styles | 1 | off | 1000/s | 900 | 4.00 | 10.00 | 30.00 | 0.00% | 0 | 1.00 | - | 0.90x | 4.00x | 5.00x | 6.00x |');
  });
});
