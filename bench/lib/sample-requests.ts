// The requests each scenario sends, made from Node: to register the persisted
// query before a hash-only run, and to sample SQL statements per request from
// the x-sql-statements header when the generator did not record it (wrk, or
// a k6 scenario without the sql_statements trend).
import { randomProductUpdate } from '../../k6/lib/product-update.ts';
import { BenchError } from './bench-error.ts';
import { freshGet } from './fresh-get.ts';
import { apqUrl, GRAPHQL_SCENARIOS, operationHash, operationText } from './graphql-scenarios.ts';
import { randomBody } from './browse-requests.ts';
import { SHOP_MIX_SCENARIO, type ShopMixFiles, shopMixRequest } from './shop-mix.ts';

/**
 * Registers an operation's text under its hash, so hash-only requests
 * work. Without Redis each cluster worker keeps its own APQ store, so it is
 * registered on fresh connections, several per worker (node:cluster hands
 * connections out round robin), until every worker has it.
 */
export async function registerPersistedQuery(baseUrl: string, operationName: string, workers = 1): Promise<void> {
  const params = new URLSearchParams({
    operationName,
    query: operationText(operationName),
    variables: JSON.stringify({ id: '1' }),
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: operationHash(operationName) } }),
  });
  for (let i = 0; i < 4 * workers; i++) {
    const response = await freshGet(`${baseUrl}/graphql?${params}`);
    if (response.status !== 200) throw new Error(`registering the persisted query ${operationName} failed: HTTP ${response.status}`);
  }
}

/** What the sampled requests are drawn from, and the run's API key for the writes. */
export interface SampleTarget {
  idMax: number;
  products: number;
  /** The run's API key; only the write scenarios need it. */
  apiKey: string | undefined;
  /** A browse scenario's file of request bodies (bench/lib/browse-requests.ts). */
  browseRequests?: string;
  /** The shop mix's files (bench/lib/shop-mix.ts). */
  shopMix?: ShopMixFiles;
}

/** A PUT like the write scenario's: a new name and 1-4 new features; anything but 200 with an ETag stops the bench. */
async function sampleUpdate(baseUrl: string, id: string, apiKey: string | undefined): Promise<Response> {
  if (apiKey === undefined) throw new BenchError('a write scenario without an API key');
  const response = await fetch(`${baseUrl}/products/${id}`, {
    method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify(randomProductUpdate()),
  });
  if (response.status !== 200 || !/^"\d+"$/.test(response.headers.get('etag') ?? '')) {
    throw new BenchError(`a sampled PUT /products/${id} answered ${response.status} (ETag ${response.headers.get('etag')}): ${(await response.text()).slice(0, 200)}`);
  }
  return response;
}

/** One request of `scenario` for a random product id up to idMax (a random page for listings). */
function sampleRequest(scenario: string, baseUrl: string, { idMax, products, apiKey, browseRequests, shopMix }: SampleTarget): Promise<Response> {
  const id = String(1 + Math.floor(Math.random() * idMax));
  // The shop mix: a random line of its sequence.
  if (scenario === SHOP_MIX_SCENARIO && shopMix) return shopMixRequest(baseUrl, shopMix, randomBody(shopMix.sequence));
  // A browse scenario: one of the bodies its generator sends (bench/lib/browse-requests.ts).
  if (browseRequests !== undefined) return fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: randomBody(browseRequests) });
  const graphql = GRAPHQL_SCENARIOS[scenario];
  if (graphql?.transport === 'apq') return fetch(apqUrl(baseUrl, graphql.operationName, id));
  if (graphql) {
    return fetch(`${baseUrl}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operationName: graphql.operationName, query: operationText(graphql.operationName), variables: { id } }),
    });
  }
  switch (scenario) {
    case 'rest-products-page':
      return fetch(`${baseUrl}/products?page=${1 + Math.floor(Math.random() * Math.ceil(products / 5))}&count=5`);
    case 'rest-update-features':
      // BEGIN, the row lock, the update with its features, COMMIT: 4.
      return sampleUpdate(baseUrl, id, apiKey);
    default:
      return fetch(`${baseUrl}/products/${id}/styles`);
  }
}

/** Mean x-sql-statements over 50 requests like the scenario's. */
export async function sampleStatements(scenario: string, baseUrl: string, target: SampleTarget): Promise<number> {
  const samples = 50;
  let sum = 0;
  for (let i = 0; i < samples; i++) {
    const response = await sampleRequest(scenario, baseUrl, target);
    await response.arrayBuffer();
    sum += Number(response.headers.get('x-sql-statements'));
  }
  return sum / samples;
}
