// GET /products/:id (the list item fields plus features) for random ids over the whole catalogue.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { product } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('rest_product', [REQUESTS.product], (catalogue, validate) => send([product(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
