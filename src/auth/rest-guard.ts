// API keys and rate limits for the legacy REST routes, as one onRequest hook:
// writes (POST/PUT/DELETE) need a valid key, reads only with
// API_KEYS_FOR_READS=required; every request costs 1 of the caller's budget.
// Refusals keep the legacy error shape: 401 and 429 with {"error": "..."}
// (a presented key that is not valid is charged to the address first: 429
// once that budget is spent, see AccessControl.identify).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import { type AccessControl, type Caller, isIdentifyFailure, rateLimitMessage, refusal } from './access.ts';
import { isWriteMethod } from '../http/methods.ts';

/** What a REST request costs, whatever it reads or writes. */
const REQUEST_COST = 1;

/**
 * The onRequest hook. A callback hook: a request without a key, when rate
 * limits are off, passes it without a promise; every other one goes through
 * the checks below.
 */
export function restGuard(access: AccessControl) {
  /** Every check; true when it answered the request (a refusal). */
  async function check(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    let caller: Caller;
    try {
      caller = await access.identify(request.headers, request.ip);
      access.require(caller, isWriteMethod(request.method) ? 'write' : 'read');
    } catch (error) {
      if (!isIdentifyFailure(error)) throw error;
      const { status, headers } = refusal(error);
      void reply.code(status).headers(headers).send({ error: error.message });
      return true;
    }
    const decision = await access.spend(caller, REQUEST_COST);
    if (!decision) return false;
    reply.headers(Object.fromEntries(rateLimitHeaders(decision)));
    if (decision.allowed) return false;
    void reply.code(429).send({ error: rateLimitMessage(caller, decision, REQUEST_COST) });
    return true;
  }
  return function guard(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (!access.rateLimited) {
      const anonymous = access.callerWithoutKey(request.headers, request.ip);
      if (anonymous && access.allows(anonymous, isWriteMethod(request.method) ? 'write' : 'read')) return done();
    }
    check(request, reply).then((answered) => { if (!answered) done(); }, done);
  };
}
