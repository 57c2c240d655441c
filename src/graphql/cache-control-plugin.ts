// Cache-Control and surrogate keys of GraphQL responses (src/http/http-caching.ts
// has the rule). A query over GET without errors is a cacheable read: its
// reuse is bounded by the @cacheControl hints in schema/*.graphql for what it
// selects (cache-hints.ts, worked out once per operation by its prepared
// operation), and its Surrogate-Key / Cache-Tag name the products it showed.
// Everything else (POST, mutations, errors) is no-store: only GET answers can
// be reused by browsers and CDNs at all. The fast path sets the same headers
// with the same functions (fast-path.ts, `readHeaders`).
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyReply } from 'fastify';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import type { CachePolicy } from './cache-hints.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import type { PreparedOperations } from './prepared-operations.ts';

/** The headers of a cacheable GraphQL read answer, by name, in the order they are set. */
export function readAnswerHeaders(httpCaching: HttpCaching, policy: CachePolicy, tags: readonly string[]): [string, string][] {
  const isPrivate = policy.scope === 'PRIVATE';
  const headers: [string, string][] = [['cache-control', httpCaching.cacheControl({ hintSeconds: policy.maxAge, private: isPrivate })]];
  if (!isPrivate) headers.push(...surrogateKeys(tags));
  return headers;
}

/** Sets them on a reply (the fast path's answers). */
export function setReadAnswerHeaders(reply: FastifyReply, httpCaching: HttpCaching, policy: CachePolicy, tags: readonly string[]): void {
  for (const [name, value] of readAnswerHeaders(httpCaching, policy, tags)) reply.header(name, value);
}

export function cacheControlPlugin(operations: PreparedOperations, httpCaching: HttpCaching): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse(requestContext) {
          const { request, response, document, operation, contextValue } = requestContext;
          const headers = response.http.headers;
          const cacheable = request.http?.method === 'GET' && operation?.operation === 'query' && document !== undefined
            && response.body.kind === 'single' && !response.body.singleResult.errors?.length && response.body.singleResult.data !== undefined;
          if (!cacheable) {
            headers.set('cache-control', 'no-store');
            return;
          }
          const { policy } = operations.forRequest({ queryHash: requestContext.queryHash, document, request });
          for (const [name, value] of readAnswerHeaders(httpCaching, policy, shownTags(contextValue))) headers.set(name, value);
        },
      };
    },
  };
}
