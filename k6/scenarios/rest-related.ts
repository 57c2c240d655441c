// GET /products/:id/related (related ids, duplicates kept) for random ids over the whole catalogue.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { related } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('rest_related', [REQUESTS.related], (catalogue, validate) => send([related(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
