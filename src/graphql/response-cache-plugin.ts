// Caches whole GraphQL query results in the shared response cache, keyed by
// the document's hash, the operation name and the variables it declares
// (PreparedOperation.cacheKey), and tagged with every product the request's
// loaders fetched (plus listings for list queries), so a write drops exactly
// the results that showed what it changed. Mutations, and results with
// errors, are never cached. This is the cache stage of every request
// (stages.ts): `askCache` and `cacheEntry`, which the known-operation path
// (fast-path.ts) calls and Apollo's plugin below adapts.
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { ExecutionResult } from 'graphql';
import type { CachedResponse, Obtained, Outcome, ResponseCache } from '../cache/response-cache.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import { representationETag } from '../http/http-caching.ts';
import { EARLY_MEDIA_TYPES } from './http-status.ts';
import type { PreparedOperation, PreparedOperations } from './prepared-operations.ts';
import { ran, type StageTrace } from './stages.ts';

/**
 * A successful result as the response cache keeps it: the body Apollo sends
 * (less its final newline), the tags of the products it shows, and its ETag
 * under each media type a GET may be answered in, computed once here rather
 * than on every hit.
 */
export function cacheEntry(body: string, tags: readonly string[]): CachedResponse {
  return { status: 200, body, tags: [...tags], etags: Object.fromEntries(EARLY_MEDIA_TYPES.map((type) => [type, representationETag(type, `${body}\n`)])) };
}

/**
 * The cache stage: asks the response cache (undefined: off) for a query's
 * result, by its one key (src/cache/cache-key.ts, through
 * PreparedOperation.cacheKey); undefined when there is nothing to ask.
 */
export function askCache(trace: StageTrace | undefined, cache: ResponseCache | undefined, prepared: () => PreparedOperation, variables: Record<string, unknown> | null | undefined, cheap: () => boolean): Promise<Obtained> | undefined {
  ran(trace, 'cache');
  return cache?.obtain(prepared().cacheKey(variables), cheap());
}

/** Apollo's adapter of the cache stage (`cache` undefined: off, the stage still runs and asks nothing). */
export function responseCachePlugin(cache: ResponseCache | undefined, operations: PreparedOperations): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      /** A miss: the cache did not have it (and, unless handed over by the stages' runner, the turn to produce it). */
      let missed = false;
      let settle: ((response: CachedResponse | undefined) => void) | undefined;
      return {
        async responseForOperation(requestContext) {
          const { operation, request, contextValue, queryHash, document } = requestContext;
          // `operation` is undefined (whatever its type says) when no operation has the
          // requested name; execution then answers 400 OPERATION_RESOLUTION_FAILURE.
          // The known-operation path asked the cache already for a request it hands over (a miss).
          const query = operation?.operation === 'query' && queryHash !== undefined;
          missed = query && (contextValue.handedOver?.cacheAsked ?? false);
          const resolved = { queryHash: queryHash!, document, request };
          const obtained = await askCache(contextValue.stages, query && !missed ? cache : undefined, () => operations.forRequest(resolved), request.variables, () => operations.checksFor(resolved, contextValue).cheap);
          if (!obtained) return null;
          if (obtained.outcome === 'miss') {
            missed = true;
            settle = obtained.settle;
            return null;
          }
          return served(contextValue, obtained.response, obtained.outcome);
        },
        async willSendResponse({ response, contextValue }) {
          if (!missed) return;
          if (response.body.kind !== 'single') return settle?.(undefined);
          response.http.headers.set('x-cache', 'miss');
          if (!settle) return;
          const result = response.body.singleResult;
          const ok = !result.errors?.length && result.data !== undefined;
          settle(ok ? cacheEntry(JSON.stringify({ data: result.data }), shownTags(contextValue)) : undefined);
        },
      };
    },
  };
}

function served(context: GraphQLContext, { body, tags }: CachedResponse, outcome: Exclude<Outcome, 'miss'>) {
  context.servedTags = tags;
  return {
    http: { status: 200, headers: new HeaderMap([['x-cache', outcome]]) },
    body: { kind: 'single' as const, singleResult: JSON.parse(body) as ExecutionResult },
  };
}
