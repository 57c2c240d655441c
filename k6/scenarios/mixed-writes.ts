// mixed.ts with writes: 95% of iterations are the shop's page views, 5% write
// a random product (PUT /products/:id renaming it and replacing its features).
// Half of the writes are conditional: GET the product, then PUT with If-Match
// set to its ETag; a 412 is a correct answer when the product changed in
// between (its ETag must then name a newer version), counted apart in
// product_write_conflicts. Any other non-2xx answer is a failed request. RATE
// counts iterations per second. Needs API_KEY; every id in [ID_MIN, ID_MAX]
// must exist. It changes the catalogue it runs on: npm run bench:soak then
// compares every written product, read through the API, with the database.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { Counter } from 'k6/metrics';
import { send } from '../lib/calls.ts';
import { type Catalogue, randomId } from '../lib/catalogue.ts';
import { requireApiKey } from '../lib/config.ts';
import { randomProductUpdate } from '../lib/product-update.ts';
import { product, updateProduct } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { PAGE_REQUESTS, pageView } from '../lib/shop.ts';
import { REQUESTS } from '../lib/targets.ts';

/** Share of iterations that write; the rest are page views. */
const WRITE_SHARE = 0.05;
/** Share of the writes that read the product first and send If-Match. */
const CONDITIONAL_SHARE = 0.5;

requireApiKey();

/** Writes answered 200 (conditional or not). */
const writes = new Counter('product_writes');
/** Writes sent with If-Match, whatever the answer. */
const conditionalWrites = new Counter('product_writes_conditional');
/** Conditional writes answered 412: the product changed between the read and the write. */
const conflicts = new Counter('product_write_conflicts');

/** One write; its bodies are always validated (writes are few, and what they answer is the point). */
function write(catalogue: Catalogue): void {
  const id = randomId(catalogue);
  let ifMatch: string | undefined;
  if (Math.random() < CONDITIONAL_SHARE) {
    const [read] = send([product(id)], true);
    ifMatch = read!.headers.Etag;
    // Not found or no ETag: the read's own checks have counted it; nothing to write against.
    if (read!.status !== 200 || ifMatch === undefined) return;
    conditionalWrites.add(1);
  }
  const [answer] = send([updateProduct(id, randomProductUpdate(), { ifMatch })], true);
  if (answer!.status === 200) writes.add(1);
  else if (answer!.status === 412) conflicts.add(1);
}

const script = loadScript('mixed_writes', [...PAGE_REQUESTS, REQUESTS.updateProduct], (catalogue, validate) => {
  if (Math.random() < WRITE_SHARE) write(catalogue);
  else pageView(catalogue, validate);
});
export const { options, setup, handleSummary } = script;
export default script.iteration;
