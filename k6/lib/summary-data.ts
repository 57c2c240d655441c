// The parts of k6's end-of-test summary object (handleSummary's argument) the
// reports read. @types/k6 does not describe it.

export interface SummaryMetric {
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryCheck { name: string; passes: number; fails: number }
export interface SummaryGroup { name: string; checks: SummaryCheck[]; groups: SummaryGroup[] }

export interface SummaryData {
  metrics: Record<string, SummaryMetric | undefined>;
  root_group: SummaryGroup;
  state: { testRunDurationMs: number };
  setup_data?: unknown;
}

/** A metric's value, NaN when k6 has no such metric (nothing was sampled). */
export function metricValue(data: SummaryData, metric: string, stat: string): number {
  return data.metrics[metric]?.values[stat] ?? Number.NaN;
}

export function allChecks(group: SummaryGroup): SummaryCheck[] {
  return [...group.checks, ...group.groups.flatMap(allChecks)];
}
