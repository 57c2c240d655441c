// The browse scenarios (CategoryPage, SearchPage and ShopFacets of
// k6/operations.graphql): a random body of the file BROWSE_REQUESTS, one
// GraphQL body per line, written by the bench (bench/lib/browse-requests.ts:
// category pages, searches, facets, deep keyset pages). Env: see
// k6/lib/config.ts and docs/load-testing.md.
import { send } from '../lib/calls.ts';
import { config } from '../lib/config.ts';
import { loadScript } from '../lib/script.ts';
import { REQUESTS } from '../lib/targets.ts';

const OPERATIONS = ['CategoryPage', 'SearchPage', 'ShopFacets'];
const BODIES = open(__ENV.BROWSE_REQUESTS ?? '').split('\n').filter((line) => line !== '');
if (BODIES.length === 0) throw new Error('BROWSE_REQUESTS must name a file of GraphQL bodies, one per line (bench/lib/browse-requests.ts)');

const script = loadScript('graphql_browse', OPERATIONS.map(REQUESTS.graphql), (_catalogue, validate) => {
  const body = BODIES[Math.floor(Math.random() * BODIES.length)]!;
  const { operationName } = JSON.parse(body) as { operationName: string };
  return send([{
    name: REQUESTS.graphql(operationName), method: 'POST', url: `${config.baseUrl}/graphql`, body, statuses: [200],
    bodyChecks: () => ({ 'no errors, data present': (b) => (b as { errors?: unknown }).errors === undefined && typeof (b as { data?: unknown }).data === 'object' }),
  }], validate);
});
export const { options, setup, handleSummary } = script;
export default script.iteration;
