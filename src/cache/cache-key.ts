// The response cache's keys, for both APIs: built here and nowhere else.
// A key names what the answer depends on and nothing more: what a client
// adds that changes nothing (an undeclared variable or query parameter, the
// order of either, `01` for `1`) gives the same key, since a key made unique
// at will would skip the cache at will, and let one client fill it with any
// number of copies of one answer.
import { canonicalJson } from '../util/canonical-json.ts';

type Values = Record<string, unknown>;

/**
 * A GraphQL query result's key: the document's sha256, the operationName as
 * sent, and the variables the operation declares (`declared`), as sent.
 */
export function graphqlCacheKey(documentHash: string, sentName: string | undefined, declared: readonly string[], sent: Values | null | undefined): string {
  const variables: Values = {};
  for (const name of declared) if (sent && Object.hasOwn(sent, name)) variables[name] = sent[name];
  return `gql:${documentHash}:${sentName ?? ''}:${canonicalJson(variables)}`;
}

/**
 * A REST read's key: its route template with the path parameters as
 * validated (`/products/1/styles`), then the query parameters the route
 * declares (`declared`, in the route's order), as validated
 * (`/products?page=2&count=5`).
 */
export function restCacheKey(template: string, params: Values, declared: readonly string[], query: Values): string {
  const path = template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const search = declared.filter((name) => query[name] !== undefined)
    .map((name) => `${name}=${encodeURIComponent(String(query[name]))}`).join('&');
  return `rest:${path}${search === '' ? '' : `?${search}`}`;
}
