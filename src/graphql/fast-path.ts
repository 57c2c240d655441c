// The fast path of /graphql: a query Apollo has already run here, with every
// check that depends on the document passed (a checked prepared operation:
// prepared-operations.ts), is answered without Apollo's request pipeline, with
// the response cache on or off. Apollo would hash the document's text again,
// look it up, call every plugin's hooks, negotiate the media type twice, build
// its request context and serialise the result through its own layers: for a
// product page that is more than half of the Node CPU the request costs
// (docs/performance.md). Here the same checks run, with the same functions,
// in the order Apollo's plugins run them, on variables coerced once:
//
// 1. the caller needs read access (access-plugin.ts);
// 2. the variables coerce, stay within the argument caps and the cost limit
//    (limits-plugin.ts, through PreparedOperation.check);
// 3. the cost is taken from the caller's rate-limit budget (access-plugin.ts);
// 4. the response cache is asked with the same key, and a miss stored as the
//    same entry, sharing one single flight (response-cache-plugin.ts);
// 5. the same compiled query runs with the same context and resolvers;
// 6. the same headers are set (cache-control-plugin.ts, the rate-limit
//    headers), and the body is Apollo's, byte for byte
//    (test/graphql/fast-path.test.ts compares both paths).
//
// Anything else goes to Apollo, which decides and words it as always: an
// unknown document, another media type, a refusal (its budget, when taken,
// handed over with the request so it is not taken twice), variables that do
// not coerce. A result with errors is handed to Apollo with the context it ran
// in: Apollo runs it again on the same loaders (what they read is cached, so
// no statement is sent twice) and words the errors, their status and their
// log lines.
//
// Every plugin Apollo runs is declared below with what the fast path does in
// its place (FAST_PATH_PLUGINS); test/graphql/fast-path.test.ts fails when
// Apollo runs one that is not declared.
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isCompiledQuery } from 'graphql-jit';
import type { AccessControl } from '../auth/access.ts';
import type { CachedResponse, ResponseCache } from '../cache/response-cache.ts';
import type { HttpCaching } from '../http/http-caching.ts';
import { recordOperation } from '../observability/graphql-operations.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { RateLimitDecision } from '../ratelimit/limiter.ts';
import { setReadAnswerHeaders } from './cache-control-plugin.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import { earlyMediaType } from './http-status.ts';
import type { PreparedOperation, PreparedOperations } from './prepared-operations.ts';
import { cacheEntry } from './response-cache-plugin.ts';
import { executed } from './traces-plugin.ts';

/**
 * Every plugin Apollo runs for /graphql, and what the fast path does in its
 * place for the requests it answers. A plugin is added to Apollo's list
 * with `declared(name, plugin)`; Apollo running one not declared here fails
 * test/graphql/fast-path.test.ts.
 */
export const FAST_PATH_PLUGINS = {
  operationRecord: 'fills in the request\'s operation record (name, type, resolved) the same way; errors are counted by Apollo, which answers every result with errors',
  landingPageDisabled: 'nothing to do: Apollo\'s landing page is off (the route serves the IDE)',
  cacheControlDisabled: 'nothing to do: Apollo\'s per-field cache control is off (cacheControl below reads the hints per document)',
  inlineTraceDisabled: 'nothing to do: federated tracing is off',
  cacheControl: 'sets the same Cache-Control and surrogate keys from the prepared operation\'s policy (setReadAnswerHeaders), no-store for POST',
  trustedDocuments: 'answers only checked operations, which passed it when Apollo ran them (the manifest does not change while the server runs)',
  limits: 'the shape passed when Apollo ran the operation (it is the document\'s); the argument caps and the cost are checked per request with PreparedOperation.check; a refusal goes to Apollo',
  access: 'the same access.require(read) and access.spend(units) per request; a refusal goes to Apollo, with the decision when one was taken',
  learning: 'nothing to do: it marks operations checked, which is what lets the fast path answer them',
  internalErrors: 'nothing to do: a result with errors goes to Apollo',
  httpStatus: 'answers only results without errors: 200, as the plugin makes them',
  responseCache: 'asks the same cache with the same key (ResponseCache.obtain, one single flight) and stores the same entry (cacheEntry)',
  traces: 'nothing to do: parsing and validation spans, and the fast path does neither (the cost and execution spans are written where both paths check and run)',
} as const;

export type FastPathPlugin = keyof typeof FAST_PATH_PLUGINS;

const declarations = new WeakMap<object, FastPathPlugin>();

/** A plugin for Apollo's list, declared with what the fast path does in its place. */
export function declared<T extends ApolloServerPlugin<never>>(name: FastPathPlugin, plugin: T): T {
  declarations.set(plugin, name);
  return plugin;
}

/** The plugins of `plugins` (Apollo's list once started, its own included) not declared for the fast path. */
export function undeclaredPlugins(plugins: readonly object[]): object[] {
  return plugins.filter((plugin) => !declarations.has(plugin));
}

/** What a GraphQL HTTP request asks to run, read the way Apollo Server reads it (its runHttpQuery). */
export interface SentOperation {
  /** The document's text, when sent (POST, or GET with `query`). */
  text: string | undefined;
  /** The document's hash, when sent instead of the text (a persisted query by hash only). */
  hash: string | undefined;
  /** As sent; undefined when absent. */
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/**
 * `extensions` exactly as Apollo Client's persisted-queries link writes it
 * (version 4 names itself first, in `clientLibrary`): its hash is read
 * without parsing the JSON (JSON.parse of it is 3% of a persisted hit's
 * CPU). Any other spelling is parsed. The names' strings hold no quote,
 * backslash or control character, so they are JSON strings as they stand.
 */
const APOLLO_CLIENT_EXTENSIONS = /^\{(?:"clientLibrary":\{"name":"[^"\\\x00-\x1f]*","version":"[^"\\\x00-\x1f]*"\},)?"persistedQuery":\{"version":1,"sha256Hash":"([0-9a-f]{64})"\}\}$/;

/** The hash of GET's `extensions` text, when it holds a version 1 persisted query (throws when it is not JSON). */
function persistedHashOfText(extensions: string | undefined): string | undefined {
  if (extensions === undefined) return undefined;
  return APOLLO_CLIENT_EXTENSIONS.exec(extensions)?.[1] ?? persistedHash(JSON.parse(extensions));
}

/** The document hash of `extensions` holding a version 1 persisted query (and nothing Apollo reads otherwise). */
function persistedHash(extensions: unknown): string | undefined {
  const persisted = isRecord(extensions) ? extensions.persistedQuery : undefined;
  if (!isRecord(persisted) || persisted.version !== 1 || typeof persisted.sha256Hash !== 'string') return undefined;
  return persisted.sha256Hash;
}

/**
 * A POST body with the document's text, no extensions, and variables as an
 * object (or none). Anything Apollo would refuse, or handle in a way of its
 * own (an APQ registration, a batch, a string where an object belongs), is
 * undefined here and goes to Apollo.
 */
export function sentByPost(body: unknown): SentOperation | undefined {
  if (!isRecord(body) || typeof body.query !== 'string' || body.query === '') return undefined;
  const { query, operationName, variables, extensions } = body;
  if (extensions !== undefined && extensions !== null) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  return { text: query, hash: undefined, operationName: operationName ?? undefined, variables: variables ?? {} };
}

/**
 * GET parameters (each at most once, as Fastify's query parser gives them):
 * the document's text without extensions, or a persisted query by hash only.
 */
export function sentByGet(query: Record<string, unknown>): SentOperation | undefined {
  const { operationName, variables, extensions } = query;
  if (operationName !== undefined && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && typeof variables !== 'string') return undefined;
  if (extensions !== undefined && typeof extensions !== 'string') return undefined;
  const text = query.query;
  if (text !== undefined && (typeof text !== 'string' || text === '' || extensions !== undefined)) return undefined;
  try {
    const hash = text === undefined ? persistedHashOfText(extensions) : undefined;
    if (text === undefined && hash === undefined) return undefined;
    const parsed: unknown = variables === undefined ? {} : JSON.parse(variables);
    if (!isRecord(parsed)) return undefined;
    return { text, hash, operationName, variables: parsed };
  } catch {
    return undefined;
  }
}

export interface FastPathOptions {
  operations: PreparedOperations;
  access: AccessControl;
  httpCaching: HttpCaching;
  /** The response cache; undefined when it is off (CACHE=off). */
  cache: ResponseCache | undefined;
  /** The context Apollo would build for the request (its context function). */
  context: (request: FastifyRequest) => GraphQLContext;
  /** Runs `fn` in the request's statement-counting scope. */
  counted: <T>(request: FastifyRequest, fn: () => Promise<T>) => Promise<T>;
}

export class FastPath {
  private readonly options: FastPathOptions;
  /** Requests handed to Apollo after the fast path began them: the context they run in. */
  private readonly handedOver = new WeakMap<FastifyRequest, GraphQLContext>();
  /** Requests answered here (tests tell the two paths apart by it: their answers are the same). */
  answered = 0;

  constructor(options: FastPathOptions) {
    this.options = options;
  }

  /** The context a request handed over to Apollo runs in, for Apollo's context function; undefined for any other. */
  contextOf(request: FastifyRequest): GraphQLContext | undefined {
    return this.handedOver.get(request);
  }

  private handOver(request: FastifyRequest, context: GraphQLContext, decision: RateLimitDecision | undefined, cacheAsked: boolean): false {
    context.handedOver = { decision, cacheAsked };
    this.handedOver.set(request, context);
    return false;
  }

  /**
   * Answers `request` when it names a checked query and Apollo would answer
   * it with data; returns false, having sent nothing, when Apollo must answer
   * it instead.
   */
  async answer(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const { operations, access, cache } = this.options;
    const sent = request.method === 'POST' ? sentByPost(request.body)
      : request.method === 'GET' ? sentByGet(request.query as Record<string, unknown>) : undefined;
    if (!sent) return false;
    const prepared = operations.checkedQuery(sent.hash, sent.text, sent.operationName);
    // Apollo refuses a GET with a body type (415) and negotiates the media type (406).
    const type = prepared && (request.method === 'POST' || request.headers['content-type'] === undefined) ? earlyMediaType(request.headers.accept) : undefined;
    const compiled = type && prepared!.compiled;
    if (!prepared || !type || !compiled || !isCompiledQuery(compiled)) return false;
    try {
      access.require(request.caller, 'read');
    } catch {
      return false; // Apollo words the refusal
    }
    const checks = prepared.check(sent.variables);
    // Not coercible (400 BAD_USER_INPUT), over a cap or the cost limit: Apollo words it.
    if (checks.errors || checks.refusal) return false;
    let decision: RateLimitDecision | undefined;
    if (access.rateLimited) {
      decision = await access.spend(request.caller, checks.units);
      // Refused: Apollo answers the 429 with this decision.
      if (decision && !decision.allowed) return this.handOver(request, this.options.context(request), decision, false);
    }
    let settle: ((response: CachedResponse | undefined) => void) | undefined;
    let stores = false;
    if (cache) {
      const obtained = await cache.obtain(prepared.cacheKey(sent.variables), checks.cheap);
      if (obtained.outcome !== 'miss') {
        const record = recordOperation(request);
        record.resolved = true;
        record.name = prepared.operation?.name?.value;
        record.type = 'query';
        record.hash = prepared.hash;
        this.headers(request, reply, prepared, decision, obtained.response.tags);
        reply.header('x-cache', obtained.outcome);
        // Computed when it was stored (cacheEntry); the GET route's onSend hook uses it.
        const etag = obtained.response.etags?.[type];
        if (etag && request.method === 'GET') reply.header('etag', etag);
        return this.send(reply, type, obtained.response.body);
      }
      settle = obtained.settle;
      stores = obtained.stores;
    }
    const context = this.options.context(request);
    // What Apollo's operationRecordPlugin notes once the operation is resolved.
    context.operation.resolved = true;
    context.operation.name = prepared.operation?.name?.value;
    context.operation.type = 'query';
    context.operation.hash = prepared.hash;
    let result;
    try {
      result = await this.options.counted(request, async () => executed(() => compiled.query(undefined, context, checks.coerced)));
    } catch (error) {
      settle?.(undefined);
      throw error;
    }
    if (result.errors?.length) {
      settle?.(undefined);
      return this.handOver(request, context, decision, cache !== undefined);
    }
    // Apollo's body: {errors, data, extensions} in that order, and a newline
    // (its prettyJSONStringify); compiled queries give neither errors (those went
    // to Apollo) nor extensions.
    const body = JSON.stringify({ data: result.data });
    const tags = shownTags(context);
    // An entry to store has its ETags (one per media type: hits reuse them);
    // one not stored is only shared with identical requests meanwhile, whose
    // answers get theirs as this one does, from the GET route's onSend hook.
    const entry: CachedResponse = stores ? cacheEntry(body, tags) : { status: 200, body, tags };
    settle?.(entry);
    this.headers(request, reply, prepared, decision, tags);
    if (cache) reply.header('x-cache', 'miss');
    // The hook would compute the same tag again (it keeps one already set).
    const etag = entry.etags?.[type];
    if (etag && request.method === 'GET' && reply.getHeader('cache-control') !== 'no-store') reply.header('etag', etag);
    return this.send(reply, type, body);
  }

  /** The headers in the order Apollo's plugins set them: access (the rate limit), cache control. */
  private headers(request: FastifyRequest, reply: FastifyReply, prepared: PreparedOperation, decision: RateLimitDecision | undefined, tags: readonly string[]): void {
    if (decision) for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
    if (request.method === 'GET') setReadAnswerHeaders(reply, this.options.httpCaching, prepared.policy, tags);
    else reply.header('cache-control', 'no-store');
  }

  private async send(reply: FastifyReply, type: string, body: string): Promise<true> {
    this.answered++;
    await reply.code(200).type(type).send(`${body}\n`);
    return true;
  }
}
