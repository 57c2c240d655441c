// ProductListingPage (k6/operations.graphql): a listing page of PAGE_SIZE
// (default 20) product cards with their default style, for random pages.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { lastPage, randomPage } from '../lib/catalogue.ts';
import { config } from '../lib/config.ts';
import { productListingPage } from '../lib/graphql.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const count = config.pageSize;

const script = loadScript('graphql_products_list', [REQUESTS.graphql('ProductListingPage')], (catalogue, validate) =>
  send([productListingPage(randomPage(catalogue, count), count, lastPage(catalogue, count))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
