// A response-cache hit for a persisted query sent by hash over GET (the
// CDN-friendly request: `GET /graphql?operationName=…&variables=…&extensions=
// {"persistedQuery":…}`), answered before Apollo's pipeline runs: Apollo would
// parse nothing (the document is in its store), but it would still run every
// plugin hook, estimate the cost, negotiate, parse the cached body and
// serialise it again, which made a cached GraphQL answer cost twice a cached
// REST one. The answer is the one Apollo gives, byte for byte and header for
// header (test/graphql/persisted-hits.test.ts compares them).
//
// Only operations Apollo has already run here qualify (known-operations.ts): queries
// that passed its validation, the limits on their shape and (with
// TRUSTED_DOCUMENTS) the allowlist. The variables still meet the argument caps
// and the cost limit, the caller still needs the access a read needs and still
// pays the operation's cost from their rate-limit budget. Anything else
// (unknown hash, other media types, a refusal, a miss) goes to Apollo as before,
// which then decides, counts and answers exactly as it always did.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { AccessControl } from '../auth/access.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import { recordOperation } from '../observability/graphql-operations.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { KnownOperations } from './known-operations.ts';
import { sentByGet } from './sent-operation.ts';
import { resultCacheKey } from './response-cache-plugin.ts';
import { earlyMediaType } from './http-status.ts';

export interface PersistedHitsOptions {
  schema: GraphQLSchema;
  known: KnownOperations;
  cache: ResponseCache;
  access: AccessControl;
  httpCaching: HttpCaching;
}

export class PersistedHits {
  private readonly options: PersistedHitsOptions;
  /** Requests answered here (tests tell the two paths apart by it: their answers are the same). */
  answered = 0;

  constructor(options: PersistedHitsOptions) {
    this.options = options;
  }

  /**
   * Answers `request` from the response cache when it is a hash-only GET of a
   * known query whose answer is cached; returns false (having sent nothing and
   * spent nothing) when Apollo must answer it instead.
   */
  async answer(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const { cache, access, httpCaching } = this.options;
    const persisted = sentByGet(request.query as Record<string, unknown>);
    if (persisted?.hash === undefined) return false;
    const known = this.options.known.get(persisted.hash, persisted.operationName);
    const type = known && earlyMediaType(request.headers.accept);
    if (!known || !type) return false;
    try {
      access.require(request.caller, 'read');
    } catch {
      return false; // Apollo words the refusal
    }
    // Capped arguments and the cost, as the limits plugin checks them; Apollo words a refusal.
    const units = this.options.known.unitsFor(this.options.schema, known, persisted.variables);
    if (units === undefined) return false;
    // The response cache plugin's key (response-cache-plugin.ts).
    const cached = await cache.peek(resultCacheKey(persisted.hash, persisted.operationName, known.operation, persisted.variables));
    if (!cached) return false;
    if (access.rateLimited) {
      const decision = await access.spend(request.caller, units);
      if (decision && !decision.allowed) return false; // refused: Apollo answers the 429 (charging the refused request again)
      if (decision) for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
    }
    const record = recordOperation(request);
    record.resolved = true;
    record.name = known.operation.name?.value;
    record.type = 'query';
    const isPrivate = known.policy.scope === 'PRIVATE';
    reply.header('cache-control', httpCaching.cacheControl({ hintSeconds: known.policy.maxAge, private: isPrivate }));
    if (!isPrivate) for (const [name, value] of surrogateKeys(cached.tags)) reply.header(name, value);
    reply.header('x-cache', 'hit');
    // Computed when it was stored (response-cache-plugin.ts); the route's onSend hook uses it.
    const etag = cached.etags?.[type];
    if (etag) reply.header('etag', etag);
    this.answered++;
    // Apollo ends every JSON body with a newline (its prettyJSONStringify).
    await reply.code(200).type(type).send(`${cached.body}\n`);
    return true;
  }
}
