// k6 as the load generator: found (or built once with Go), run on a scenario
// script through its environment interface, read back from its JSON summary.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/commands/run.ts';
import type { Measurement } from './measurement.ts';

const K6_VERSION = 'v1.8.1';
const K6_BIN = process.env.K6_BIN ?? path.join(os.homedir(), '.cache', 'catalogue-api', 'bin', 'k6');
export const SCENARIO_DIR = path.resolve(import.meta.dirname, '../../k6/scenarios');

export function ensureK6(): string {
  if (fs.existsSync(K6_BIN)) return K6_BIN;
  console.log(`building k6 ${K6_VERSION} into ${path.dirname(K6_BIN)} (about 3 minutes, once)`);
  const result = spawnSync('go', ['install', `go.k6.io/k6@${K6_VERSION}`], {
    stdio: 'inherit', env: { ...process.env, GOBIN: path.dirname(K6_BIN), PATH: `${process.env.PATH}:/usr/local/go/bin` },
  });
  if (result.status !== 0 || !fs.existsSync(K6_BIN)) throw new UsageError('could not build k6: install Go, or set K6_BIN to a k6 binary');
  return K6_BIN;
}

/** A k6 --summary-export document's metrics: name -> figure -> value. */
export type K6Metrics = Record<string, Record<string, number> | undefined>;

export function readK6Metrics(summaryFile: string): K6Metrics {
  return (JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as { metrics: K6Metrics }).metrics;
}

/**
 * Runs k6/scenarios/<scenario>.ts with `env` (BASE_URL, RATE, DURATION, PROFILE, …)
 * and returns what it measured; the summary stays in `summaryFile`. Thresholds
 * are not evaluated: the benchmark reports the numbers, it does not judge them.
 */
export function runK6(k6: string, scenario: string, env: Record<string, string>, summaryFile: string): Measurement {
  fs.rmSync(summaryFile, { force: true });
  const result = spawnSync(k6, ['run', '--quiet', '--no-color', '--no-thresholds', `--summary-export=${summaryFile}`, '--summary-trend-stats=avg,med,p(95),p(99),max',
    path.join(SCENARIO_DIR, `${scenario}.ts`)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
  if (!fs.existsSync(summaryFile)) throw new Error(`k6 failed for ${scenario} (exit ${result.status})`);
  return k6Measurement(readK6Metrics(summaryFile));
}

/** The figures of a k6 --summary-export document. */
export function k6Measurement(metrics: K6Metrics): Measurement {
  const duration = metrics.http_req_duration ?? {};
  return {
    requests: metrics.http_reqs?.count ?? 0,
    rps: metrics.http_reqs?.rate ?? 0,
    p50: duration.med ?? Number.NaN,
    p95: duration['p(95)'] ?? Number.NaN,
    p99: duration['p(99)'] ?? Number.NaN,
    errors: metrics.http_req_failed?.value ?? 0,
    dropped: metrics.dropped_iterations?.count ?? 0,
    sql: metrics.sql_statements?.avg ?? null,
  };
}
