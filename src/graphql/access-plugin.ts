// API keys for GraphQL: the caller is identified before anything else runs
// (an unknown, revoked or malformed key is a 401 at once, charged to the
// address: a 429 RATE_LIMITED once that budget is spent). What the caller may
// do with the operation it sends, and what it costs, is the access stage of
// every request (stages.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AddressRateLimited, type AccessControl, type Caller, isIdentifyFailure, refusal } from '../auth/access.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a GraphQL request (set by graphqlCaller). */
    caller: Caller;
  }
}

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
