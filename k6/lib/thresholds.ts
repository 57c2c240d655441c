// Thresholds per profile. A crossed threshold makes `k6 run` exit 99.
//  - every profile: the legacy floor (p95, errors) and passing checks;
//  - load and soak: the offered rate was served (the floor's 100 req/s is the default RATE);
//  - load: this project's latency targets for the requests the script sends;
//  - stress: the same floor per step, aborting the run when a step breaks it,
//    plus per-step figures handleSummary turns into the highest rate that met them.
import type { Threshold } from 'k6/options';
import { config } from './config.ts';
import { stressRates } from './profiles.ts';
import { CHECKS_PASS_RATE, LEGACY_FLOOR, SERVED_SHARE, targetsFor } from './targets.ts';

type Thresholds = Record<string, Threshold[]>;

/** The tag carrying a stress step's arrival rate on every metric sampled during it. */
export const STEP_TAG = 'stress_rate';

/** Metric key of a submetric, e.g. http_req_duration{stress_rate:200,name:GET /products/:id}. */
export function submetric(metric: string, tags: Record<string, string | number>): string {
  return `${metric}{${Object.entries(tags).map(([key, value]) => `${key}:${value}`).join(',')}}`;
}

const floor = {
  duration: `p(95)<${LEGACY_FLOOR.p95Ms}`,
  failed: `rate<${LEGACY_FLOOR.errorRate}`,
  checks: `rate>${CHECKS_PASS_RATE}`,
};

function legacyFloor(): Thresholds {
  return { http_req_duration: [floor.duration], http_req_failed: [floor.failed], checks: [floor.checks] };
}

function servedOfferedRate(): Thresholds {
  const planned = config.rate * (config.duration.ms / 1000);
  return { dropped_iterations: [`count<=${Math.floor(planned * (1 - SERVED_SHARE))}`] };
}

function projectTargets(requests: string[]): Thresholds {
  return Object.fromEntries(targetsFor(requests).map((t) => [submetric('http_req_duration', { name: t.request }), [`p(99)<${t.p99Ms}`]]));
}

function perStressStep(requests: string[]): Thresholds {
  const thresholds: Thresholds = {};
  const abort = (threshold: string): Threshold => ({ threshold, abortOnFail: true });
  for (const rate of stressRates()) {
    const step = { [STEP_TAG]: rate };
    thresholds[submetric('http_req_duration', step)] = [abort(floor.duration)];
    thresholds[submetric('http_req_failed', step)] = [abort(floor.failed)];
    thresholds[submetric('checks', step)] = [abort(floor.checks)];
    // Always true: listed so the step's counts reach handleSummary (k6 reports submetrics only when they have thresholds).
    thresholds[submetric('iterations', step)] = ['count>=0'];
    thresholds[submetric('http_reqs', step)] = ['count>=0'];
    for (const target of targetsFor(requests)) {
      // Not aborting: the run goes on to find where the (looser) legacy floor breaks.
      thresholds[submetric('http_req_duration', { ...step, name: target.request })] = [`p(99)<${target.p99Ms}`];
    }
  }
  return thresholds;
}

/** `requests`: the name tags of the requests the script sends. */
export function thresholdsFor(requests: string[]): Thresholds {
  switch (config.profile) {
    case 'smoke':
      return legacyFloor();
    case 'load':
      return { ...legacyFloor(), ...servedOfferedRate(), ...projectTargets(requests) };
    case 'soak':
      return { ...legacyFloor(), ...servedOfferedRate() };
    case 'stress':
      return { ...legacyFloor(), ...perStressStep(requests) };
  }
}
