// GET /products?page=P&count=PAGE_SIZE (default 20) for random P up to the
// last page: bulk listing clients, bigger pages than the shop's.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { lastPage, randomPage } from '../lib/catalogue.ts';
import { config } from '../lib/config.ts';
import { productsPage } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const count = config.pageSize;

const script = loadScript('rest_products_list', [REQUESTS.productsPage(count)], (catalogue, validate) =>
  send([productsPage(randomPage(catalogue, count), count, lastPage(catalogue, count))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
