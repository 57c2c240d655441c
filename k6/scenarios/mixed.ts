// What the legacy shop's pages send, mixed: a product page (detail, styles and
// related of one random product, at once, as the browser does) or a listing
// page (GET /products?page=P&count=5). RATE counts pages per second.
// Env: see k6/lib/config.ts and the README's "Load testing with k6".
import { send } from '../lib/calls.ts';
import { lastPage, randomId, randomPage } from '../lib/catalogue.ts';
import { product, productsPage, related, styles } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

/** Share of page views that are product pages; the rest are listing pages. */
const PRODUCT_PAGE_SHARE = 0.7;
const LISTING_COUNT = 5;

const script = loadScript('mixed', [REQUESTS.product, REQUESTS.styles, REQUESTS.related, REQUESTS.productsPage(LISTING_COUNT)], (catalogue, validate) => {
  if (Math.random() < PRODUCT_PAGE_SHARE) {
    const id = randomId(catalogue);
    send([product(id), styles(id), related(id)], validate);
  } else {
    send([productsPage(randomPage(catalogue, LISTING_COUNT), LISTING_COUNT, lastPage(catalogue, LISTING_COUNT))], validate);
  }
});
export const { options, setup, handleSummary } = script;
export default script.iteration;
