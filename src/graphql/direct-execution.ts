// Runs a known query (known-operations.ts) without Apollo Server's request
// pipeline: Apollo would hash the document's text again, look the document up,
// call every plugin's hooks (most of which do nothing for such a query),
// negotiate the media type twice, build its request context and serialise the
// result through its own layers; for a product page that was more than half
// of the Node CPU the request cost (docs/performance.md, "GraphQL at the speed
// of REST"). Here the same compiled query (jit.ts) runs with the same context
// and resolvers, and the answer is the one Apollo gives, byte for byte and
// header for header (test/graphql/direct-execution.test.ts compares them).
//
// What depends on the request is still checked on every request, as Apollo's
// plugins check it: the caller needs read access, the variables must coerce
// and stay within the argument caps and the cost limit, the operation's cost
// is taken from the caller's rate-limit budget. Anything
// else goes to Apollo as before: an unknown document, another media type, a
// refusal (Apollo words it; a refused budget is charged again there, as for a
// cached persisted query), variables that do not coerce. A result with errors
// is handed to Apollo too, with the context it ran in and the budget it
// already paid: Apollo runs it again on the same loaders (what they read is
// cached, so no statement is sent twice) and words the errors, their status
// and their log lines as always. Only without a response cache (CACHE=off):
// with one, the cache's plugin decides per request, in Apollo.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type GraphQLSchema, getVariableValues } from 'graphql';
import { isCompiledQuery } from 'graphql-jit';
import type { AccessControl } from '../auth/access.ts';
import { type HttpCaching, surrogateKeys } from '../http/http-caching.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { RateLimitDecision } from '../ratelimit/limiter.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import { earlyMediaType } from './http-status.ts';
import type { CompiledQueries } from './jit.ts';
import type { KnownOperations } from './known-operations.ts';
import type { SentOperation } from './sent-operation.ts';
import { withInputDefaults } from './input-defaults.ts';

export interface DirectExecutionOptions {
  schema: GraphQLSchema;
  known: KnownOperations;
  compiled: CompiledQueries;
  access: AccessControl;
  httpCaching: HttpCaching;
  /** The context Apollo would build for the request (its context function). */
  context: (request: FastifyRequest) => Promise<GraphQLContext>;
  /** Runs `fn` in the request's statement-counting scope. */
  counted: <T>(request: FastifyRequest, fn: () => Promise<T>) => Promise<T>;
}

export class DirectExecution {
  private readonly options: DirectExecutionOptions;
  /** Requests whose result had errors: Apollo runs them in the same context. */
  private readonly handedOver = new WeakMap<FastifyRequest, GraphQLContext>();
  /** Requests answered here (tests tell the two paths apart by it: their answers are the same). */
  answered = 0;

  constructor(options: DirectExecutionOptions) {
    this.options = options;
  }

  /** The context a request handed over to Apollo ran in, for Apollo's context function; undefined for any other. */
  contextOf(request: FastifyRequest): GraphQLContext | undefined {
    return this.handedOver.get(request);
  }

  /**
   * Answers `request` (which sent `sent`) when it names a known query; returns
   * false, having sent nothing, when Apollo must answer it instead.
   */
  async answer(request: FastifyRequest, reply: FastifyReply, sent: SentOperation | undefined): Promise<boolean> {
    const { schema, known, compiled, access } = this.options;
    if (!sent) return false;
    const hash = sent.hash ?? (sent.text === undefined ? undefined : known.hashOf(sent.text));
    const query = hash === undefined ? undefined : known.get(hash, sent.operationName);
    // Apollo refuses a GET with a body type other than JSON (415).
    const type = query && (request.method === 'POST' || request.headers['content-type'] === undefined) ? earlyMediaType(request.headers.accept) : undefined;
    if (!query || !type) return false;
    try {
      access.require(request.caller, 'read');
    } catch {
      return false; // Apollo words the refusal
    }
    // Coerced as the gateway's executor does (jit.ts); Apollo words the errors (400 BAD_USER_INPUT).
    if (getVariableValues(schema, query.operation.variableDefinitions ?? [], sent.variables, { maxErrors: 25 }).errors) return false;
    // Capped arguments and the cost, as the limits plugin checks them; Apollo words a refusal.
    const units = known.unitsFor(schema, query, sent.variables);
    if (units === undefined) return false;
    const run = compiled.get(query.hash, query.document, query.operationName);
    if (!isCompiledQuery(run)) return false;
    let decision: RateLimitDecision | undefined;
    if (access.rateLimited) {
      decision = await access.spend(request.caller, units);
      if (decision && !decision.allowed) return false; // refused: Apollo answers the 429 (charging the refused request again)
    }
    const context = await this.options.context(request);
    // What Apollo's operationRecordPlugin notes once the operation is resolved.
    context.operation.resolved = true;
    context.operation.name = query.operation.name?.value;
    context.operation.type = 'query';
    const result = await this.options.counted(request, async () => run.query(undefined, context, withInputDefaults(schema, query.operation, sent.variables)));
    if (result.errors?.length) {
      context.prepaid = { decision };
      this.handedOver.set(request, context);
      return false;
    }
    // The headers in the order Apollo's plugins set them (access, cache control), then its content type.
    if (decision) for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
    if (request.method === 'GET') {
      const isPrivate = query.policy.scope === 'PRIVATE';
      reply.header('cache-control', this.options.httpCaching.cacheControl({ hintSeconds: query.policy.maxAge, private: isPrivate }));
      if (!isPrivate) for (const [name, value] of surrogateKeys(shownTags(context))) reply.header(name, value);
    } else {
      reply.header('cache-control', 'no-store');
    }
    this.answered++;
    // Apollo's body: its fields in the order it writes them, and a newline (its prettyJSONStringify).
    await reply.code(200).type(type).send(`${JSON.stringify({ errors: undefined, data: result.data, extensions: result.extensions })}\n`);
    return true;
  }
}
