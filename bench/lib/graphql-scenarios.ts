// The GraphQL scenarios of `npm run bench`, one definition each: which
// operation of k6/operations.graphql (the text k6 sends and codegen types) and
// how it travels: POST with its text, or GET by persisted-query hash only (the
// CDN-friendly path; the bench registers the text first). wrk runs them with
// bench/wrk/graphql-post.lua and graphql-apq.lua, given the operation in the
// environment (graphqlEnv); k6 with its own scripts (POST only).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { operationsByName } from '../../k6/lib/operation-text.ts';

export interface GraphQLScenario {
  operationName: string;
  transport: 'post' | 'apq';
  /** The k6 scenario script for POST scenarios (k6/scenarios/<name>.ts); APQ scenarios are wrk only. */
  k6?: string;
}

export const GRAPHQL_SCENARIOS: Record<string, GraphQLScenario> = {
  // product(id) { styles { photos skus } }: the original nested query.
  'graphql-product-styles': { operationName: 'ProductWithStyles', transport: 'post', k6: 'graphql-product-styles' },
  'graphql-apq': { operationName: 'ProductWithStyles', transport: 'apq' },
  // The full product page: details, features, styles with photos and skus, related ids.
  'graphql-product-page': { operationName: 'ProductPageWithRelatedIds', transport: 'post', k6: 'graphql-product-page-ids' },
  'graphql-product-page-apq': { operationName: 'ProductPageWithRelatedIds', transport: 'apq' },
  // The same with related products as cards (name, category, price, default style's photos).
  'graphql-product-page-cards': { operationName: 'ProductDetailPage', transport: 'post', k6: 'graphql-product-page' },
  'graphql-product-page-cards-apq': { operationName: 'ProductDetailPage', transport: 'apq' },
};

const OPERATIONS = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../../k6/operations.graphql'), 'utf8'));

/** The text of an operation of k6/operations.graphql, with its fragments. */
export function operationText(operationName: string): string {
  const text = OPERATIONS.get(operationName);
  if (text === undefined) throw new Error(`k6/operations.graphql has no operation ${operationName}`);
  return text;
}

/** The persisted-query hash of an operation's text (what Apollo Client's link sends). */
export function operationHash(operationName: string): string {
  return crypto.createHash('sha256').update(operationText(operationName)).digest('hex');
}

/** The environment the wrk scripts read: the operation's name, its text as a JSON string, its hash. */
export function graphqlEnv(scenario: GraphQLScenario): Record<string, string> {
  return {
    OPERATION_NAME: scenario.operationName,
    QUERY_JSON: JSON.stringify(operationText(scenario.operationName)),
    APQ_HASH: operationHash(scenario.operationName),
  };
}

/** The URL of a hash-only GET of `scenario`'s operation for product `id` (the wrk script's request, from Node). */
export function apqUrl(baseUrl: string, operationName: string, id: string): string {
  const params = new URLSearchParams({
    operationName,
    variables: JSON.stringify({ id }),
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: operationHash(operationName) } }),
  });
  return `${baseUrl}/graphql?${params}`;
}
