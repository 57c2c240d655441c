// GET /products?page=P&count=5 for random P up to the last page: the shop's
// listing page (project target: p99 < 20 ms).
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { lastPage, randomPage } from '../lib/catalogue.ts';
import { productsPage } from '../lib/rest.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const COUNT = 5;

const script = loadScript('rest_products_page', [REQUESTS.productsPage(COUNT)], (catalogue, validate) =>
  send([productsPage(randomPage(catalogue, COUNT), COUNT, lastPage(catalogue, COUNT))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
