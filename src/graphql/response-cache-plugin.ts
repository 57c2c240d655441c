// Caches whole GraphQL query results in the shared response cache, keyed by
// the document's hash, the operation name and the variables it declares, and tagged with
// every product the request's loaders fetched (plus listings for list
// queries), so a write drops exactly the results that showed what it changed.
// Mutations, and results with errors, are never cached.
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { ExecutionResult, OperationDefinitionNode } from 'graphql';
import type { CacheToken, ResponseCache } from '../cache/response-cache.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { representationETag } from '../http/http-caching.ts';
import { EARLY_MEDIA_TYPES } from './http-status.ts';

/** A result as the response cache keeps it: the body and the tags of the products it shows. */
interface Shared {
  body: string;
  tags: readonly string[];
}

/**
 * The ETag of a cached body under each media type a GET may be answered in
 * (Apollo's body ends with a newline): an early hit (persisted-hits.ts) sends
 * it instead of hashing the body on every hit.
 */
function storedETags(body: string): Record<string, string> {
  return Object.fromEntries(EARLY_MEDIA_TYPES.map((type) => [type, representationETag(type, `${body}\n`)]));
}

/**
 * The key of an operation's result: the document's hash, the operation name,
 * and the variables it declares (others change nothing, and would let one
 * client make any number of keys for one result: found by an outside run
 * padding requests with an undeclared 200 KB variable).
 */
export function resultCacheKey(hash: string | undefined, operationName: string | undefined, operation: OperationDefinitionNode, variables: Record<string, unknown>): string {
  const declared: Record<string, unknown> = {};
  for (const { variable } of operation.variableDefinitions ?? []) {
    const name = variable.name.value;
    if (Object.hasOwn(variables, name)) declared[name] = variables[name];
  }
  return `gql:${hash}:${operationName ?? ''}:${canonicalJson(declared)}`;
}

/** How long a request waits for an identical one already running before running itself. */
const FOLLOW_TIMEOUT_MS = 2_000;

export function responseCachePlugin(cache: ResponseCache): ApolloServerPlugin<GraphQLContext> {
  // Single flight: the first miss for a key runs; identical requests arriving
  // meanwhile wait for its result instead of reaching Postgres too.
  const inFlight = new Map<string, Promise<Shared | undefined>>();
  const served = (context: GraphQLContext, { body, tags }: Shared, how: string) => {
    context.servedTags = tags;
    return {
    http: { status: 200, headers: new HeaderMap([['x-cache', how]]) },
      body: { kind: 'single' as const, singleResult: JSON.parse(body) as ExecutionResult },
    };
  };
  return {
    async requestDidStart() {
      let key: string | undefined;
      let token: CacheToken | undefined;
      let leader: ((result: Shared | undefined) => void) | undefined;
      return {
        async responseForOperation({ operation, request, queryHash, contextValue }) {
          // `operation` is undefined (whatever its type says) when no operation has the
          // requested name; execution then answers 400 OPERATION_RESOLUTION_FAILURE.
          if (operation?.operation !== 'query') return null;
          key = resultCacheKey(queryHash, request.operationName, operation, request.variables ?? {});
          const cached = await cache.lookup(key);
          if (cached) return served(contextValue, cached, 'hit');
          // Only a miss reads Postgres, so only a miss needs the store's generation (before the read).
          token = await cache.begin();
          const running = inFlight.get(key);
          if (running) {
            const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), FOLLOW_TIMEOUT_MS).unref());
            const result = await Promise.race([running, timeout]);
            if (result !== undefined) return served(contextValue, result, 'shared');
          } else {
            const flight = new Promise<Shared | undefined>((resolve) => { leader = resolve; });
            inFlight.set(key, flight);
            // Never let a lost leader block its key.
            const flightKey = key;
            setTimeout(() => { if (inFlight.get(flightKey) === flight) inFlight.delete(flightKey); }, FOLLOW_TIMEOUT_MS).unref();
          }
          return null;
        },
        async willSendResponse({ response, contextValue }) {
          if (!key || !leader || response.body.kind !== 'single') return;
          response.http.headers.set('x-cache', 'miss');
          const result = response.body.singleResult;
          const ok = !result.errors?.length && result.data !== undefined;
          const body = ok ? JSON.stringify({ data: result.data }) : undefined;
          const tags = shownTags(contextValue);
          inFlight.delete(key);
          leader(body === undefined ? undefined : { body, tags });
          if (!body) return;
          cache.save(key, { status: 200, body, tags, etags: storedETags(body) }, token);
        },
      };
    },
  };
}
