// GET /products/:id/styles for random ids over the whole catalogue: the legacy
// product page's heaviest call (project target: 3,000/s, p99 < 30 ms).
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { styles } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('rest_styles', [REQUESTS.styles], (catalogue, validate) => send([styles(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
