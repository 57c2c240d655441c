// Everything a load script exports, from its scenario name, the requests it
// sends and one iteration. A script is then:
//
//   const script = loadScript('rest_styles', [REQUESTS.styles], (catalogue, validate) => send([styles(randomId(catalogue))], validate));
//   export const { options, setup, handleSummary } = script;
//   export default script.iteration;
import { findCatalogue } from './catalogue.ts';
import { eachIteration, type IterationBody } from './iteration.ts';
import { optionsFor } from './options.ts';
import { summaryHandler } from './summary.ts';

export function loadScript(scenario: string, requests: string[], body: IterationBody) {
  return {
    options: optionsFor(scenario, requests),
    setup: findCatalogue,
    iteration: eachIteration(body),
    handleSummary: summaryHandler(requests),
  };
}
