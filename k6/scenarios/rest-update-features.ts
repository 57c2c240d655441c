// PUT /products/:id for random ids over the whole catalogue: renames the
// product and replaces its features with 1-4 new ones (the bench's write
// scenario; issue target: 1,000 updates/s with no errors on one process).
// Needs API_KEY; every id in [ID_MIN, ID_MAX] must exist. It changes the
// catalogue it runs on. Checks: status 200, an ETag, the legacy product
// detail with the name and features as written.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { requireApiKey } from '../lib/config.ts';
import { randomProductUpdate } from '../lib/product-update.ts';
import { updateProduct } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

requireApiKey();

const script = loadScript('rest_update_features', [REQUESTS.updateProduct], (catalogue, validate) =>
  send([updateProduct(randomId(catalogue), randomProductUpdate())], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
