// Cache-Control and surrogate keys of GraphQL responses (src/http/http-caching.ts
// has the rule). A query over GET without errors is a cacheable read: its
// reuse is bounded by the @cacheControl hints in schema/*.graphql for what it
// selects (cache-hints.ts), and its Surrogate-Key / Cache-Tag name the
// products it showed. Everything else (POST, mutations, errors) is no-store:
// only GET answers can be reused by browsers and CDNs at all.
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import { type CachePolicy, cachePolicy } from './cache-hints.ts';
import { type GraphQLContext, shownTags } from './context.ts';

const MAX_REMEMBERED = 1000;

export function cacheControlPlugin(schema: GraphQLSchema, httpCaching: HttpCaching): ApolloServerPlugin<GraphQLContext> {
  const policies = new Map<string, CachePolicy>();
  const policyOf = (document: Parameters<typeof cachePolicy>[1], queryHash: string, operationName: string | null | undefined) => {
    const key = `${queryHash}:${operationName ?? ''}`;
    let policy = policies.get(key);
    if (!policy) {
      policy = cachePolicy(schema, document, operationName ?? undefined);
      if (policies.size >= MAX_REMEMBERED) policies.delete(policies.keys().next().value as string);
      policies.set(key, policy);
    }
    return policy;
  };
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response, document, operationName, queryHash, operation, contextValue }) {
          const headers = response.http.headers;
          const cacheable = request.http?.method === 'GET' && operation?.operation === 'query' && document !== undefined
            && response.body.kind === 'single' && !response.body.singleResult.errors?.length && response.body.singleResult.data !== undefined;
          if (!cacheable) {
            headers.set('cache-control', 'no-store');
            return;
          }
          const policy = policyOf(document, queryHash, operationName);
          const isPrivate = policy.scope === 'PRIVATE';
          headers.set('cache-control', httpCaching.cacheControl({ hintSeconds: policy.maxAge, private: isPrivate }));
          if (!isPrivate) for (const [name, value] of surrogateKeys(shownTags(contextValue))) headers.set(name, value);
        },
      };
    },
  };
}
