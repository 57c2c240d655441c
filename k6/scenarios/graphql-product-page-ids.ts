// ProductPageWithRelatedIds (k6/operations.graphql): a whole product page in one
// operation, related products as ids (details, features, styles with photos and
// skus) for random ids: one SQL statement. Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { productPageWithRelatedIds } from '../lib/graphql.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('graphql_product_page_ids', [REQUESTS.graphql('ProductPageWithRelatedIds')], (catalogue, validate) =>
  send([productPageWithRelatedIds(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
