// handleSummary: k6's own end-of-test summary, unless the run is a stress run
// (then a table of its steps and the highest rate that met the thresholds) or
// SUMMARY_JSON asks for a file (then that file, and a compact text summary:
// k6 prints its own only when handleSummary returns nothing).
import { config } from './config.ts';
import { stressReport, type StressReport } from './stress-report.ts';
import { allChecks, metricValue, type SummaryData } from './summary-data.ts';
import { CHECKS_PASS_RATE, LEGACY_FLOOR } from './targets.ts';
import { STEP_TAG } from './thresholds.ts';

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(2));
const percent = (rate: number) => (Number.isNaN(rate) ? '-' : `${(rate * 100).toFixed(2)}%`);

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padStart(widths[i]!)).join('  '));
}

function stressText(report: StressReport): string[] {
  const targetNames = report.targets.map((t) => t.request);
  const header = ['rate/s', 'iterations/s', 'requests/s', 'p95 ms', 'p99 ms', ...targetNames.map((n) => `${n} p99 ms`), 'errors', 'checks', 'legacy floor', 'target p99'];
  const rows = report.steps.map((s) => [
    String(s.rate), s.iterationsPerSecond.toFixed(1), s.requestsPerSecond.toFixed(1), ms(s.p95Ms), ms(s.p99Ms),
    ...targetNames.map((n) => ms(s.targetP99Ms[n]!)), percent(s.errorRate), percent(s.checksRate),
    !s.ran ? 'not run' : s.meetsFloor ? 'met' : `broken: ${s.floorBrokenBy.join(', ')}`,
    report.targets.length === 0 || !s.ran ? '-' : s.targetsBrokenBy.length === 0 ? 'met' : 'broken: p99',
  ]);
  const floor = `legacy floor (p95 < ${LEGACY_FLOOR.p95Ms} ms, errors < ${percent(LEGACY_FLOOR.errorRate)}, checks > ${percent(CHECKS_PASS_RATE)}, offered rate served)`;
  const highest = (rate: number | null) => (rate === null ? 'none: the first step broke it' : rate === report.steps.at(-1)!.rate ? `${rate}/s, the last step (raise MAX_RATE to find the limit)` : `${rate}/s`);
  const lines = [`stress steps of ${config.stress.stepDuration.text}:`, ...table([header, ...rows]), '', `highest arrival rate that met the ${floor}: ${highest(report.highestRateMeetingFloor)}`];
  if (report.targets.length > 0) {
    const targets = report.targets.map((t) => `${t.request} p99 < ${t.p99Ms} ms`).join(', ');
    lines.push(`highest that also met the project targets (${targets}): ${highest(report.highestRateMeetingTargets)}`);
  }
  // A throughput target is about one request: comparable with the steps' rates only when an iteration is that one request.
  const throughput = report.oneRequestPerIteration ? report.targets.filter((t) => t.ratePerSecond !== undefined) : [];
  for (const target of throughput) {
    lines.push(`project target throughput ${target.ratePerSecond}/s: ${(report.highestRateMeetingTargets ?? 0) >= target.ratePerSecond! ? 'met' : 'not met'}`);
  }
  return lines;
}

function compactText(data: SummaryData): string[] {
  const seconds = data.state.testRunDurationMs / 1000;
  const failedChecks = allChecks(data.root_group).filter((c) => c.fails > 0);
  // Stress steps' thresholds are in the step table.
  const crossed = Object.entries(data.metrics).filter(([name]) => !name.includes(`${STEP_TAG}:`))
    .flatMap(([name, metric]) => Object.entries(metric?.thresholds ?? {}).filter(([, t]) => !t.ok).map(([source]) => `${name} ${source}`));
  return [
    `${config.profile} run against ${config.baseUrl}: ${metricValue(data, 'http_reqs', 'count')} requests in ${seconds.toFixed(1)} s (${metricValue(data, 'http_reqs', 'rate').toFixed(1)}/s), ${metricValue(data, 'dropped_iterations', 'count') || 0} dropped iterations`,
    `http_req_duration p50 ${ms(metricValue(data, 'http_req_duration', 'med'))} ms, p95 ${ms(metricValue(data, 'http_req_duration', 'p(95)'))} ms, p99 ${ms(metricValue(data, 'http_req_duration', 'p(99)'))} ms; failed requests ${percent(metricValue(data, 'http_req_failed', 'rate'))}; checks passed ${percent(metricValue(data, 'checks', 'rate'))}`,
    ...failedChecks.map((c) => `failed check: ${c.name} (${c.fails} of ${c.passes + c.fails})`),
    `thresholds${config.profile === 'stress' ? ' (besides the steps below)' : ''}: ${crossed.length === 0 ? 'all met' : `crossed: ${crossed.join('; ')}`}`,
  ];
}

/** `requests`: the name tags of the script's requests (for the project targets). */
export function summaryHandler(requests: string[]) {
  return (data: SummaryData): Record<string, string> | undefined => {
    const stress = config.profile === 'stress' ? stressReport(data, requests) : undefined;
    if (stress === undefined && config.summaryJson === undefined) return undefined;
    const text = [...compactText(data), ...(stress === undefined ? [] : ['', ...stressText(stress)])];
    const files: Record<string, string> = { stdout: `\n${text.join('\n')}\n\n` };
    if (config.summaryJson !== undefined) {
      files[config.summaryJson] = `${JSON.stringify({ profile: config.profile, baseUrl: config.baseUrl, catalogue: data.setup_data, stress, k6: data }, null, 2)}\n`;
    }
    return files;
  };
}
