// ProductWithStyles (k6/operations.graphql) over POST /graphql for random ids:
// the nested product, with styles, photos and skus (project target: 2,000/s, p99 < 50 ms).
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { randomId } from '../lib/catalogue.ts';
import { productWithStyles } from '../lib/graphql.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const script = loadScript('graphql_product_styles', [REQUESTS.graphql('ProductWithStyles')], (catalogue, validate) =>
  send([productWithStyles(randomId(catalogue))], validate));
export const { options, setup, handleSummary } = script;
export default script.iteration;
