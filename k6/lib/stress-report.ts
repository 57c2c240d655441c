// What a stress run found: per step (one arrival rate, tagged on every sample
// taken during it), whether it met the legacy floor and the project targets,
// and the highest rate that still met them (the steps before the first that broke them).
import { config } from './config.ts';
import { stressRates } from './profiles.ts';
import { metricValue, type SummaryData } from './summary-data.ts';
import { CHECKS_PASS_RATE, LEGACY_FLOOR, SERVED_SHARE, targetsFor, type ProjectTarget } from './targets.ts';
import { STEP_TAG, submetric } from './thresholds.ts';

export interface StressStep {
  /** Offered arrival rate (iterations per second). */
  rate: number;
  /** False when the run stopped before this step. */
  ran: boolean;
  /** Iterations started during the step, per second of it (below `rate` when k6 dropped iterations). */
  iterationsPerSecond: number;
  requestsPerSecond: number;
  p95Ms: number;
  p99Ms: number;
  errorRate: number;
  checksRate: number;
  /** p99 per target request name. */
  targetP99Ms: Record<string, number>;
  meetsFloor: boolean;
  /** What broke the floor: 'rate not served' (k6 dropped iterations), 'p95', 'errors', 'checks'. */
  floorBrokenBy: string[];
  /** Met the floor and every project target. */
  meetsTargets: boolean;
  /** The targets whose p99 the step exceeded. */
  targetsBrokenBy: string[];
}

export interface StressReport {
  steps: StressStep[];
  /** Highest step rate that met the floor, with every step below it; null when the first step broke it. */
  highestRateMeetingFloor: number | null;
  highestRateMeetingTargets: number | null;
  targets: ProjectTarget[];
  /** Each iteration sends one request (so iterations per second are that request's rate). */
  oneRequestPerIteration: boolean;
}

function measureStep(data: SummaryData, rate: number, targets: ProjectTarget[]): StressStep {
  const step = { [STEP_TAG]: rate };
  const seconds = config.stress.stepDuration.ms / 1000;
  const iterations = metricValue(data, submetric('iterations', step), 'count') || 0;
  const duration = submetric('http_req_duration', step);
  // A step the run never reached (it aborted earlier) has zeros in k6's summary: report no figures at all.
  const figure = (metric: string, stat: string) => (iterations === 0 ? Number.NaN : metricValue(data, metric, stat));
  const measured = {
    rate,
    ran: iterations > 0,
    iterationsPerSecond: iterations / seconds,
    requestsPerSecond: (metricValue(data, submetric('http_reqs', step), 'count') || 0) / seconds,
    p95Ms: figure(duration, 'p(95)'),
    p99Ms: figure(duration, 'p(99)'),
    errorRate: figure(submetric('http_req_failed', step), 'rate'),
    checksRate: figure(submetric('checks', step), 'rate'),
    targetP99Ms: Object.fromEntries(targets.map((t) => [t.request, figure(submetric('http_req_duration', { ...step, name: t.request }), 'p(99)')])),
  };
  // Why the step broke the floor. One iteration of slack on the rate: the step's first may start on the boundary.
  const floorBrokenBy = [
    ...(measured.ran && iterations + 1 >= rate * seconds * SERVED_SHARE ? [] : ['rate not served']),
    ...(measured.p95Ms < LEGACY_FLOOR.p95Ms ? [] : ['p95']),
    ...(measured.errorRate < LEGACY_FLOOR.errorRate ? [] : ['errors']),
    ...(measured.checksRate > CHECKS_PASS_RATE ? [] : ['checks']),
  ];
  const targetsBrokenBy = targets.filter((t) => !(measured.targetP99Ms[t.request]! < t.p99Ms)).map((t) => `${t.request} p99`);
  const meetsFloor = floorBrokenBy.length === 0;
  return { ...measured, floorBrokenBy, meetsFloor, meetsTargets: meetsFloor && targetsBrokenBy.length === 0, targetsBrokenBy };
}

/** The last rate of the unbroken run of steps from the first that meet `meets`. */
function highestUnbroken(steps: StressStep[], meets: (step: StressStep) => boolean): number | null {
  const firstBroken = steps.findIndex((step) => !meets(step));
  const lastMet = firstBroken === -1 ? steps.length - 1 : firstBroken - 1;
  return lastMet >= 0 ? steps[lastMet]!.rate : null;
}

/** `requests`: the name tags of the requests the script sends. */
export function stressReport(data: SummaryData, requests: string[]): StressReport {
  const targets = targetsFor(requests);
  const steps = stressRates().map((rate) => measureStep(data, rate, targets));
  return {
    steps,
    highestRateMeetingFloor: highestUnbroken(steps, (s) => s.meetsFloor),
    highestRateMeetingTargets: targets.length === 0 ? null : highestUnbroken(steps, (s) => s.meetsTargets),
    targets,
    oneRequestPerIteration: requests.length === 1,
  };
}
