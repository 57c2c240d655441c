// PROFILE -> the k6 executor that runs a script's one scenario.
import type { Scenario } from 'k6/options';
import { config } from './config.ts';

/** Arrival rates of the stress steps: STEPS rates from RATE to MAX_RATE, evenly spaced. */
export function stressRates(): number[] {
  const { rate } = config;
  const { maxRate, steps } = config.stress;
  if (steps === 1 || maxRate === rate) return [maxRate];
  return Array.from({ length: steps }, (_, i) => Math.round(rate + ((maxRate - rate) * i) / (steps - 1)));
}

/** The stress step running `elapsedMs` into the scenario (each step lasts STEP_DURATION). */
export function stressRateAt(elapsedMs: number): number {
  const rates = stressRates();
  return rates[Math.min(rates.length - 1, Math.floor(elapsedMs / config.stress.stepDuration.ms))]!;
}

function vus(rate: number) {
  // Enough VUs for 100 ms answers, created before the run: a VU k6 must create
  // mid-run (up to MAX_VUS, when answers slow down) takes a while to start, and
  // the iterations due meanwhile are dropped, which a stress step counts against the server.
  return { preAllocatedVUs: Math.min(config.maxVUs, Math.max(10, Math.ceil(rate / 10))), maxVUs: config.maxVUs };
}

export function scenarioFor(): Scenario {
  switch (config.profile) {
    case 'smoke':
      return { executor: 'constant-vus', vus: 1, duration: config.duration.text };
    case 'load':
    case 'soak':
      return { executor: 'constant-arrival-rate', rate: config.rate, timeUnit: '1s', duration: config.duration.text, ...vus(config.rate) };
    case 'stress': {
      // Steps, not a ramp: each rate is held for a whole step, so each step's
      // requests (tagged with its rate) measure one load level.
      const rates = stressRates();
      const hold = config.stress.stepDuration.text;
      return {
        executor: 'ramping-arrival-rate',
        startRate: rates[0]!,
        timeUnit: '1s',
        stages: rates.flatMap((target, i) => (i === 0 ? [] : [{ target, duration: '0s' }]).concat({ target, duration: hold })),
        ...vus(config.stress.maxRate),
      };
    }
  }
}
