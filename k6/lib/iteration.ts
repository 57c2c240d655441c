// Wraps a script's iteration: tags it with its stress step, decides whether its
// bodies are validated in full, and paces the smoke profile's single VU.
import { sleep } from 'k6';
import exec from 'k6/execution';
import type { Catalogue } from './catalogue.ts';
import { config } from './config.ts';
import { stressRateAt } from './profiles.ts';
import { STEP_TAG } from './thresholds.ts';

/** Pause between smoke iterations: one user clicking, not a flood (about 10 iterations/s). */
const SMOKE_PAUSE_SECONDS = 0.1;

export type IterationBody = (catalogue: Catalogue, validate: boolean) => void;

export function eachIteration(body: IterationBody): (catalogue: Catalogue) => void {
  return (catalogue) => {
    if (config.profile === 'stress') {
      // Every metric sampled from here on (requests, checks, the iteration) carries the step's rate.
      exec.vu.metrics.tags[STEP_TAG] = stressRateAt(Date.now() - exec.scenario.startTime);
    }
    // Parsing every body at thousands of requests per second would cost the
    // load generator as much CPU as the server spends answering, on a machine
    // they may share: statuses and headers are checked every time, bodies every CHECK_EVERY-th iteration.
    body(catalogue, exec.scenario.iterationInTest % config.checkEvery === 0);
    if (config.profile === 'smoke') sleep(SMOKE_PAUSE_SECONDS);
  };
}
