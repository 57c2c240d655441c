// Cache-Control and surrogate keys of GraphQL responses (src/http/http-caching.ts
// has the rule). A query over GET without errors is a cacheable read: its
// reuse is bounded by the @cacheControl hints in schema/*.graphql for what it
// selects (cache-hints.ts, worked out once per operation by its prepared
// operation), and its Surrogate-Key / Cache-Tag name the products it showed.
// Everything else (POST, mutations, errors) is no-store: only GET answers can
// be reused by browsers and CDNs at all. This is the cacheControl stage of
// every request (stages.ts): `answerCachingHeaders`, which the known-operation
// path calls and Apollo's plugin below adapts.
import type { ApolloServerPlugin } from '@apollo/server';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import type { CachePolicy } from './cache-hints.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import type { PreparedOperations } from './prepared-operations.ts';
import { ran, type StageTrace } from './stages.ts';

/** The headers of a cacheable GraphQL read answer, by name, in the order they are set. */
export function readAnswerHeaders(httpCaching: HttpCaching, policy: CachePolicy, tags: readonly string[]): [string, string][] {
  const isPrivate = policy.scope === 'PRIVATE';
  const headers: [string, string][] = [['cache-control', httpCaching.cacheControl({ hintSeconds: policy.maxAge, private: isPrivate })]];
  if (!isPrivate) headers.push(...surrogateKeys(tags));
  return headers;
}

/**
 * The cacheControl stage: the caching headers of an answer, by name, in order.
 * `cacheable`: a query over GET without errors; its policy and the tags it
 * showed are asked only then.
 */
export function answerCachingHeaders(trace: StageTrace | undefined, httpCaching: HttpCaching, cacheable: boolean, policy: () => CachePolicy, tags: () => readonly string[]): [string, string][] {
  ran(trace, 'cacheControl');
  return cacheable ? readAnswerHeaders(httpCaching, policy(), tags()) : [['cache-control', 'no-store']];
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
          const policy = () => operations.forRequest({ queryHash: requestContext.queryHash, document: document!, request }).policy;
          for (const [name, value] of answerCachingHeaders(contextValue.stages, httpCaching, cacheable, policy, () => shownTags(contextValue))) headers.set(name, value);
        },
      };
    },
  };
}
