// ProductDetailPage (k6/operations.graphql): a whole product page in one
// operation (details, features, styles, related products' cards) for random ids.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { productDetailPage } from '../lib/graphql.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('graphql_product_page', [REQUESTS.graphql('ProductDetailPage')], (catalogue, validate) =>
  send([productDetailPage(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
