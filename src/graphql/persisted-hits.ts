// A response-cache hit for a persisted query sent by hash over GET (the
// CDN-friendly request: `GET /graphql?operationName=…&variables=…&extensions=
// {"persistedQuery":…}`), answered before Apollo's pipeline runs: Apollo would
// parse nothing (the document is in its store), but it would still run every
// plugin hook, estimate the cost, negotiate, parse the cached body and
// serialise it again, which made a cached GraphQL answer cost twice a cached
// REST one. The answer is the one Apollo gives, byte for byte and header for
// header (test/graphql/persisted-hits.test.ts compares them).
//
// Only operations Apollo has already run here qualify (knownQueries): queries
// that passed its validation, the limits and (with TRUSTED_DOCUMENTS) the
// allowlist, whose cost does not depend on the variables and which pass no
// capped argument. The caller still needs the access a read needs and still
// pays the operation's cost from their rate-limit budget. Anything else
// (unknown hash, other media types, a refusal, a miss) goes to Apollo as before,
// which then decides, counts and answers exactly as it always did.
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { AccessControl } from '../auth/access.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import { recordOperation } from '../observability/graphql-operations.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { type CachePolicy, cachePolicy } from './cache-hints.ts';
import type { GraphQLContext } from './context.ts';
import { knownFixedCost } from './cost.ts';
import { knownUncapped } from './limits/argument-caps.ts';
import { GRAPHQL_RESPONSE_MEDIA_TYPE, JSON_MEDIA_TYPE, responseMediaType } from './http-status.ts';

/** Distinct (hash, operation name) pairs remembered; the oldest is forgotten first. */
const MAX_KNOWN = 1000;

interface KnownQuery {
  /** The operation's name in its document (for the log line and metrics). */
  name: string | undefined;
  /** Rate-limit units it costs (its cost over RATE_LIMIT_GRAPHQL_COST_UNIT, at least 1). */
  units: number;
  policy: CachePolicy;
}

export interface PersistedHitsOptions {
  cache: ResponseCache;
  access: AccessControl;
  httpCaching: HttpCaching;
  costUnit: number;
}

/** What Apollo would answer for this Accept header, or undefined when only Apollo should decide (no fit, or JSONP-style callbacks). */
function mediaType(accept: string | undefined): string | undefined {
  const type = responseMediaType(accept);
  return type === JSON_MEDIA_TYPE || type === GRAPHQL_RESPONSE_MEDIA_TYPE ? type : undefined;
}

/** The persisted query a GET names: its hash, operation name and variables; undefined for anything else. */
function persistedGet(query: Record<string, unknown>): { hash: string; operationName: string; variables: unknown } | undefined {
  if (query.query !== undefined || typeof query.extensions !== 'string') return undefined;
  const { operationName, variables, extensions } = query;
  if (operationName !== undefined && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && typeof variables !== 'string') return undefined;
  try {
    const persisted = (JSON.parse(extensions) as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null)?.persistedQuery;
    if (persisted?.version !== 1 || typeof persisted.sha256Hash !== 'string') return undefined;
    const parsed: unknown = variables === undefined ? {} : JSON.parse(variables);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    return { hash: persisted.sha256Hash, operationName: operationName ?? '', variables: parsed };
  } catch {
    return undefined;
  }
}

export class PersistedHits {
  private readonly known = new Map<string, KnownQuery>();
  private readonly options: PersistedHitsOptions;
  /** Requests answered here (tests tell the two paths apart by it: their answers are the same). */
  answered = 0;

  constructor(options: PersistedHitsOptions) {
    this.options = options;
  }

  /** The Apollo plugin that learns which operations qualify (after the limits and access plugins). */
  plugin(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
    return {
      requestDidStart: async () => ({
        didResolveOperation: async ({ document, operation, operationName, queryHash, request }) => {
          // Queries whose checks do not depend on the variables (sent by hash or with their text: the hash is the text's).
          if (operation?.operation !== 'query') return;
          const key = `${queryHash}:${request.operationName ?? ''}`;
          if (this.known.has(key)) return;
          const cost = knownFixedCost(schema, document, operationName);
          if (cost === undefined || !knownUncapped(schema, operation)) return;
          if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value as string);
          this.known.set(key, {
            name: operation.name?.value,
            units: Math.max(1, Math.ceil(cost / this.options.costUnit)),
            policy: cachePolicy(schema, document, operationName ?? undefined),
          });
        },
      }),
    };
  }

  /**
   * Answers `request` from the response cache when it is a hash-only GET of a
   * known query whose answer is cached; returns false (having sent nothing and
   * spent nothing) when Apollo must answer it instead.
   */
  async answer(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const { cache, access, httpCaching } = this.options;
    const persisted = persistedGet(request.query as Record<string, unknown>);
    if (!persisted) return false;
    const known = this.known.get(`${persisted.hash}:${persisted.operationName}`);
    const type = known && mediaType(request.headers.accept);
    if (!known || !type) return false;
    try {
      access.require(request.caller, 'read');
    } catch {
      return false; // Apollo words the refusal
    }
    // The response cache plugin's key (response-cache-plugin.ts).
    const cached = await cache.peek(`gql:${persisted.hash}:${persisted.operationName}:${canonicalJson(persisted.variables)}`);
    if (!cached) return false;
    if (access.rateLimited) {
      const decision = await access.spend(request.caller, known.units);
      if (decision && !decision.allowed) return false; // refused: Apollo answers the 429 (charging the refused request again)
      if (decision) for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
    }
    const record = recordOperation(request);
    record.resolved = true;
    record.name = known.name;
    record.type = 'query';
    const isPrivate = known.policy.scope === 'PRIVATE';
    reply.header('cache-control', httpCaching.cacheControl({ hintSeconds: known.policy.maxAge, private: isPrivate }));
    if (!isPrivate) for (const [name, value] of surrogateKeys(cached.tags)) reply.header(name, value);
    reply.header('x-cache', 'hit');
    this.answered++;
    // Apollo ends every JSON body with a newline (its prettyJSONStringify).
    await reply.code(200).type(type).send(`${cached.body}\n`);
    return true;
  }
}
