// Sets Cache-Control on GraphQL responses from the SDL's cache hints (see
// cache-hints.ts): what lets a CDN cache hash-only GET requests (persisted
// queries). Responses with errors are never cacheable.
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import { type CachePolicy, cacheControlHeader, cachePolicy } from './cache-hints.ts';
import type { GraphQLContext } from './context.ts';

const MAX_REMEMBERED = 1000;

export function cacheControlPlugin(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
  const policies = new Map<string, CachePolicy>();
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, document, operationName, queryHash }) {
          let header = 'no-store';
          const ok = response.body.kind === 'single' && !response.body.singleResult.errors?.length;
          if (ok && document) {
            const key = `${queryHash}:${operationName ?? ''}`;
            let policy = policies.get(key);
            if (!policy) {
              policy = cachePolicy(schema, document, operationName ?? undefined);
              if (policies.size >= MAX_REMEMBERED) policies.delete(policies.keys().next().value as string);
              policies.set(key, policy);
            }
            header = cacheControlHeader(policy);
          }
          response.http.headers.set('cache-control', header);
        },
      };
    },
  };
}
