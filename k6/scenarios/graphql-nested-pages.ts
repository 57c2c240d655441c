// ListingWithNestedPages (k6/operations.graphql): a listing page of PAGE_SIZE
// (default 20) products, each with its first 2 styles (thumbnails) and first
// 3 related products (nested paging), for random pages.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { lastPage, randomPage } from '../lib/catalogue.ts';
import { config } from '../lib/config.ts';
import { listingWithNestedPages } from '../lib/graphql.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const count = config.pageSize;

const script = loadScript('graphql_nested_pages', [REQUESTS.graphql('ListingWithNestedPages')], (catalogue, validate) =>
  send([listingWithNestedPages(randomPage(catalogue, count), count, lastPage(catalogue, count))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
