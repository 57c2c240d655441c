// Caches whole GraphQL query results in the shared response cache, keyed by
// the document's hash, the operation name and the variables, and tagged with
// every product the request's loaders fetched (plus listings for list
// queries), so a write drops exactly the results that showed what it changed.
// Mutations, and results with errors, are never cached.
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { ExecutionResult } from 'graphql';
import { type CacheToken, LISTING_TAG, productTag, type ResponseCache } from '../cache/response-cache.ts';
import type { GraphQLContext } from './context.ts';
import { canonicalJson } from '../util/canonical-json.ts';

/** How long a request waits for an identical one already running before running itself. */
const FOLLOW_TIMEOUT_MS = 2_000;

export function responseCachePlugin(cache: ResponseCache): ApolloServerPlugin<GraphQLContext> {
  // Single flight: the first miss for a key runs; identical requests arriving
  // meanwhile wait for its result instead of reaching Postgres too.
  const inFlight = new Map<string, Promise<string | undefined>>();
  const served = (body: string, how: string) => ({
    http: { status: 200, headers: new HeaderMap([['x-cache', how]]) },
    body: { kind: 'single' as const, singleResult: JSON.parse(body) as ExecutionResult },
  });
  return {
    async requestDidStart() {
      let key: string | undefined;
      let token: CacheToken | undefined;
      let leader: ((body: string | undefined) => void) | undefined;
      return {
        async responseForOperation({ operation, request, queryHash }) {
          // `operation` is undefined (whatever its type says) when no operation has the
          // requested name; execution then answers 400 OPERATION_RESOLUTION_FAILURE.
          if (operation?.operation !== 'query') return null;
          key = `gql:${queryHash}:${request.operationName ?? ''}:${canonicalJson(request.variables ?? {})}`;
          const cached = await cache.lookup(key);
          if (cached) return served(cached.body, 'hit');
          // Only a miss reads Postgres, so only a miss needs the store's generation (before the read).
          token = await cache.begin();
          const running = inFlight.get(key);
          if (running) {
            const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), FOLLOW_TIMEOUT_MS).unref());
            const body = await Promise.race([running, timeout]);
            if (body !== undefined) return served(body, 'shared');
          } else {
            const flight = new Promise<string | undefined>((resolve) => { leader = resolve; });
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
          inFlight.delete(key);
          leader(body);
          if (!body) return;
          const tags = [...contextValue.loaders.touchedProducts].map(productTag);
          if (contextValue.listing) tags.push(LISTING_TAG);
          cache.save(key, { status: 200, body, tags }, token);
        },
      };
    },
  };
}
