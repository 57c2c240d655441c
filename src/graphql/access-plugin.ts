// API keys and rate limits for GraphQL. The caller is identified before Apollo
// runs (an unknown, revoked or malformed key is a 401 at once, charged to the
// address: a 429 RATE_LIMITED once that budget is spent); once the operation is
// resolved, mutations need a key (queries too with API_KEYS_FOR_READS=required)
// and the operation's cost (src/graphql/cost.ts, in units of RATE_LIMIT_GRAPHQL_COST_UNIT points,
// worked out by its prepared operation: prepared-operations.ts) is taken from the caller's
// budget: 401 UNAUTHENTICATED or 429 RATE_LIMITED, both as GraphQL errors.
import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { AddressRateLimited, type AccessControl, type Caller, isIdentifyFailure, rateLimitMessage, refusal, Unauthenticated } from '../auth/access.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { GraphQLContext } from './context.ts';
import type { PreparedOperations } from './prepared-operations.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a GraphQL request (set by graphqlCaller). */
    caller: Caller;
  }
}

const UNAUTHENTICATED = 'UNAUTHENTICATED';
const RATE_LIMITED = 'RATE_LIMITED';

/**
 * onRequest hook of the /graphql routes: identifies the caller for the
 * context. A callback hook: a request without a key passes it without a
 * promise (a cached answer's CPU is counted in microseconds).
 */
export function graphqlCaller(access: AccessControl) {
  /** Checks a presented key; true when it answered the request (a refusal). */
  async function identifyKey(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    try {
      request.caller = await access.identify(request.headers, request.ip);
      return false;
    } catch (error) {
      if (!isIdentifyFailure(error)) throw error;
      const { status, code, headers } = refusal(error);
      const extensions = error instanceof AddressRateLimited
        ? { code, cost: error.cost, limit: error.decision.limit, remaining: error.decision.remaining, retryAfter: error.decision.retryAfterSeconds }
        : { code };
      void reply.code(status).headers(headers).send({ errors: [{ message: error.message, extensions }] });
      return true;
    }
  }
  return function identify(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const anonymous = access.callerWithoutKey(request.headers, request.ip);
    if (anonymous) {
      request.caller = anonymous;
      return done();
    }
    identifyKey(request, reply).then((answered) => { if (!answered) done(); }, done);
  };
}

export function accessPlugin(access: AccessControl, operations: PreparedOperations): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          const { operation, contextValue, response } = requestContext;
          const { caller, handedOver } = contextValue;
          try {
            access.require(caller, operation?.operation === 'mutation' ? 'write' : 'read');
          } catch (error) {
            if (!(error instanceof Unauthenticated)) throw error;
            throw new GraphQLError(error.message, {
              extensions: { code: UNAUTHENTICATED, http: { status: 401, headers: new HeaderMap([['www-authenticate', error.challenge]]) } },
            });
          }
          if (!access.rateLimited) return;
          const cost = operations.checksFor(requestContext, contextValue).units;
          // Handed over by the fast path (fast-path.ts), which took the cost already.
          const decision = handedOver ? handedOver.decision : await access.spend(caller, cost);
          if (!decision) return;
          for (const [name, value] of rateLimitHeaders(decision)) response.http.headers.set(name, value);
          if (decision.allowed) return;
          throw new GraphQLError(rateLimitMessage(caller, decision, cost), {
            extensions: { code: RATE_LIMITED, cost, limit: decision.limit, remaining: decision.remaining, retryAfter: decision.retryAfterSeconds, http: { status: 429 } },
          });
        },
      };
    },
  };
}
