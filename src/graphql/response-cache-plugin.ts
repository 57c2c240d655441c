// Caches whole GraphQL query results in the shared response cache, keyed by
// the document's hash, the operation name and the variables, and tagged with
// every product the request's loaders fetched (plus listings for list
// queries), so a write drops exactly the results that showed what it changed.
// Mutations, and results with errors, are never cached.
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { ExecutionResult } from 'graphql';
import { LISTING_TAG, productTag, type ResponseCache } from '../cache/response-cache.ts';
import type { GraphQLContext } from './context.ts';

/** JSON with object keys sorted, so {a, b} and {b, a} are one cache key. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function responseCachePlugin(cache: ResponseCache): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      let key: string | undefined;
      let token = 0;
      let hit = false;
      return {
        async responseForOperation({ operation, request, queryHash }) {
          if (operation.operation !== 'query') return null;
          key = `gql:${queryHash}:${request.operationName ?? ''}:${stableJson(request.variables ?? {})}`;
          token = cache.begin();
          const cached = await cache.lookup(key);
          if (!cached) return null;
          hit = true;
          return {
            http: { status: 200, headers: new HeaderMap([['x-cache', 'hit']]) },
            body: { kind: 'single', singleResult: JSON.parse(cached.body) as ExecutionResult },
          };
        },
        async willSendResponse({ response, contextValue }) {
          if (!key || hit || response.body.kind !== 'single') return;
          response.http.headers.set('x-cache', 'miss');
          const result = response.body.singleResult;
          if (result.errors?.length || result.data === undefined) return;
          const tags = [...contextValue.loaders.touchedProducts].map(productTag);
          if (contextValue.listing) tags.push(LISTING_TAG);
          cache.save(key, { status: 200, body: JSON.stringify({ data: result.data }), tags }, token);
        },
      };
    },
  };
}
