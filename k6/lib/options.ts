// A script's k6 options: its one scenario run by the profile's executor, and
// the thresholds for the requests it sends.
import type { Options } from 'k6/options';
import { scenarioFor } from './profiles.ts';
import { thresholdsFor } from './thresholds.ts';

/**
 * `scenario`: the k6 scenario name (what the summary and the scenario tag call it);
 * `requests`: the name tags of the requests the script sends (project targets apply to them).
 */
export function optionsFor(scenario: string, requests: string[]): Options {
  return {
    scenarios: { [scenario]: scenarioFor() },
    thresholds: thresholdsFor(requests),
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
    // Setup may discover the catalogue with ~2 log2(n) requests to a slow server.
    setupTimeout: '120s',
  };
}
