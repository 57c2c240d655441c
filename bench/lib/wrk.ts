// wrk as the load generator: a closed loop of N busy connections, far lighter
// on the CPU it shares with the server than k6. Each scenario's script in
// bench/wrk/ runs with report.lua appended, which prints the figures as JSON.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/commands/run.ts';
import type { Measurement } from './measurement.ts';
import { GRAPHQL_SCENARIOS, graphqlEnv } from './graphql-scenarios.ts';

const WRK_DIR = path.resolve(import.meta.dirname, '../wrk');

interface WrkReport {
  requests: number;
  duration_us: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  /** Response bodies a scenario's checks looked at, and refused (bench/wrk/graphql-check.lua). */
  bodies: { checked: number; bad: number };
  latency_us: { p50: number; p95: number; p99: number; mean: number; max: number };
}

/** wrk takes durations with a unit; a bare number is seconds. */
function wrkDuration(duration: string): string {
  return /^\d+$/.test(duration) ? `${duration}s` : duration;
}

/**
 * Runs bench/wrk/<scenario>.lua against env.BASE_URL for `duration` over
 * `connections` connections; wrk's whole output is kept in `outputFile`.
 */
export function runWrk(scenario: string, env: Record<string, string>, connections: number, duration: string, outputFile: string): Measurement {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-')), `${scenario}.lua`);
  const graphql = GRAPHQL_SCENARIOS[scenario];
  // A GraphQL scenario runs its transport's script on its operation, with its body checks.
  const parts = graphql ? [`graphql-${graphql.transport}.lua`, 'graphql-check.lua'] : [`${scenario}.lua`];
  fs.writeFileSync(script, [...parts, 'report.lua'].map((file) => fs.readFileSync(path.join(WRK_DIR, file), 'utf8')).join('\n'));
  if (graphql) env = { ...env, ...graphqlEnv(graphql) };
  try {
    const result = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${wrkDuration(duration)}`, '-s', script, env.BASE_URL as string], {
      encoding: 'utf8', env: { ...process.env, ...env },
    });
    if (result.error || result.status !== 0) throw new UsageError(`wrk failed for ${scenario}: ${result.error?.message ?? result.stderr}; install it with apt-get install wrk`);
    fs.writeFileSync(outputFile, result.stdout);
    return wrkMeasurement(result.stdout);
  } finally {
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  }
}

/** The figures of wrk's output with report.lua's JSON line in it. */
export function wrkMeasurement(output: string): Measurement {
  const line = /^WRK_REPORT (.*)$/m.exec(output)?.[1];
  if (!line) throw new Error('wrk printed no report line (bench/wrk/report.lua)');
  const report = JSON.parse(line) as WrkReport;
  // A refused body counts as a failed request, like a non-2xx answer.
  const failures = Object.values(report.errors).reduce((sum, n) => sum + n, 0) + (report.bodies?.bad ?? 0);
  return {
    requests: report.requests,
    rps: report.duration_us > 0 ? report.requests / (report.duration_us / 1e6) : 0,
    p50: report.latency_us.p50 / 1000,
    p95: report.latency_us.p95 / 1000,
    p99: report.latency_us.p99 / 1000,
    // Ids are dense, so any non-2xx answer is a failure, like a socket error.
    errors: report.requests > 0 ? failures / report.requests : 0,
    dropped: 0,
    sql: null,
  };
}
