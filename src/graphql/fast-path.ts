// The known-operation path of /graphql: a query Apollo has already run here,
// with every check that depends on the document alone passed (a checked
// prepared operation: prepared-operations.ts), is taken through the stages of
// every request (stages.ts) by their runner, without Apollo's request
// pipeline, with the response cache on or off. Apollo would hash the
// document's text again, look it up, call every plugin's hooks, negotiate the
// media type twice, build its request context and serialise the result
// through its own layers: for a product page that is more than half of the
// Node CPU the request costs (docs/performance.md). Here the stage units run
// in STAGE_ORDER, on variables coerced once, and the body is Apollo's, byte
// for byte (test/graphql/fast-path.test.ts compares both ways).
//
// Anything a stage refuses, and anything else unusual, goes to Apollo, which
// runs the same stages through its adapters and words it as always: an
// unknown document, another media type, a refusal (the rate-limit decision
// taken here handed over with the request, so the budget is not taken
// twice), variables that do not coerce. A result with errors is handed to
// Apollo with the context it ran in: Apollo runs it again on the same loaders
// (what they read is cached, so no statement is sent twice) and words the
// errors, their status and their log lines.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult } from 'graphql';
import { type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import type { CachedResponse, Obtained, ResponseCache } from '../cache/response-cache.ts';
import type { HttpCaching } from '../http/http-caching.ts';
import { recordOperation } from '../observability/graphql-operations.ts';
import type { RateLimitDecision } from '../ratelimit/limiter.ts';
import { answerCachingHeaders } from './cache-control-plugin.ts';
import { type GraphQLContext, shownTags } from './context.ts';
import { answerStatus, earlyMediaType } from './http-status.ts';
import type { PreparedOperation, PreparedOperations, RequestChecks } from './prepared-operations.ts';
import { askCache, cacheEntry } from './response-cache-plugin.ts';
import { type OperationStage, ran, runOperationStages, type StageRequest } from './stages.ts';
import { executed } from './traces-plugin.ts';

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
  /** The operation stages of every request (stages.ts), which Apollo runs too. */
  stages: readonly OperationStage[];
  httpCaching: HttpCaching;
  /** The response cache; undefined when it is off (CACHE=off). */
  cache: ResponseCache | undefined;
  /** The context Apollo would build for the request (its context function). */
  context: (request: FastifyRequest) => GraphQLContext;
  /** Runs `fn` in the request's statement-counting scope. */
  counted: <T>(request: FastifyRequest, fn: () => Promise<T>) => Promise<T>;
}

/** A request for a known query, as this path answers it. */
interface KnownRequest {
  sent: SentOperation;
  prepared: PreparedOperation;
  compiled: CompiledQuery;
  /** The media type of the answer. */
  type: string;
}

export class FastPath {
  private readonly options: FastPathOptions;
  /** Requests handed to Apollo after this path began them: the context they run in. */
  private readonly handedOver = new WeakMap<FastifyRequest, GraphQLContext>();
  /** Requests answered here (tests tell the two ways apart by it: their answers are the same). */
  answered = 0;
  /** Told the stages each /graphql request ran, once answered, either way (test/graphql/stages.test.ts). */
  observeStages: ((stages: readonly string[]) => void) | undefined;

  constructor(options: FastPathOptions) {
    this.options = options;
  }

  /** The context a request handed over to Apollo runs in, for Apollo's context function; undefined for any other. */
  contextOf(request: FastifyRequest): GraphQLContext | undefined {
    return this.handedOver.get(request);
  }

  /** Hands the request to Apollo in `context` (its trace begun again: Apollo runs every stage), with what was taken already. */
  private handOver(request: FastifyRequest, context: GraphQLContext, decision: RateLimitDecision | undefined, cacheAsked: boolean, executed?: ExecutionResult): false {
    context.handedOver = { decision, cacheAsked, executed };
    context.stages = request.graphqlStages = [];
    this.handedOver.set(request, context);
    return false;
  }

  /** A stage refused, or the variables do not coerce: Apollo words it, with the rate-limit decision when one was taken. */
  private refused(request: FastifyRequest, staged: StageRequest): false {
    return 'decision' in staged ? this.handOver(request, this.options.context(request), staged.decision, false) : false;
  }

  /** The known query `request` names, when this path may answer it; undefined: Apollo's. */
  private known(request: FastifyRequest): KnownRequest | undefined {
    const sent = request.method === 'POST' ? sentByPost(request.body)
      : request.method === 'GET' ? sentByGet(request.query as Record<string, unknown>) : undefined;
    if (!sent) return undefined;
    const prepared = this.options.operations.checkedQuery(sent.hash, sent.text, sent.operationName);
    // Apollo refuses a GET with a body type (415) and negotiates the media type (406).
    const type = prepared && (request.method === 'POST' || request.headers['content-type'] === undefined) ? earlyMediaType(request.headers.accept) : undefined;
    const compiled = type && prepared!.compiled;
    if (!prepared || !type || !compiled || !isCompiledQuery(compiled)) return undefined;
    return { sent, prepared, compiled, type };
  }

  /**
   * Answers `request` when it names a checked query and Apollo would answer
   * it with data; returns false, having sent nothing, when Apollo must answer
   * it instead. The stages run in STAGE_ORDER: the operation stages (by their
   * runner), cache, execute, cacheControl, httpStatus.
   */
  async answer(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const known = this.known(request);
    if (!known) return false;
    const { sent, prepared } = known;
    const trace = request.graphqlStages ??= [];
    let checks: RequestChecks | undefined;
    const headers: [string, string][] = [];
    const staged: StageRequest = {
      trace, caller: request.caller, hash: prepared.hash, operation: prepared.operation, record: recordOperation(request),
      prepared: () => prepared, checks: () => checks ??= prepared.check(sent.variables), handedOver: undefined,
      // Set once the answer is this path's: a request handed over gets Apollo's.
      header: (name, value) => { headers.push([name, value]); },
    };
    try {
      await runOperationStages(this.options.stages, staged, true);
    } catch {
      return this.refused(request, staged);
    }
    const checked = staged.checks();
    if (checked.errors) return this.refused(request, staged);
    const obtained = await askCache(trace, this.options.cache, () => prepared, sent.variables, () => checked.cheap);
    if (obtained && obtained.outcome !== 'miss') {
      this.headers(request, reply, known, headers, obtained.response.tags);
      reply.header('x-cache', obtained.outcome);
      // Computed when it was stored (cacheEntry); the GET route's onSend hook uses it.
      const etag = obtained.response.etags?.[known.type];
      if (etag && request.method === 'GET') reply.header('etag', etag);
      return this.send(request, reply, known.type, obtained.response.body);
    }
    return this.run(request, reply, known, staged, checked, headers, obtained);
  }

  /** Executes a miss (or any request with the cache off), stores it, and answers it; a result with errors goes to Apollo. */
  private async run(request: FastifyRequest, reply: FastifyReply, known: KnownRequest, staged: StageRequest,
    checked: RequestChecks, headers: [string, string][], obtained: Obtained | undefined): Promise<boolean> {
    const settle = obtained?.outcome === 'miss' ? obtained.settle : undefined;
    const context = this.options.context(request);
    // The record the metrics stage filled in is the request's.
    context.operation = request.graphqlOperation = staged.record;
    context.stages = staged.trace;
    ran(staged.trace, 'execute');
    let result;
    try {
      result = await this.options.counted(request, async () => executed(() => known.compiled.query(undefined, context, checked.coerced)));
    } catch (error) {
      settle?.(undefined);
      throw error;
    }
    if (result.errors?.length) {
      settle?.(undefined);
      return this.handOver(request, context, staged.decision, obtained !== undefined, result);
    }
    // Apollo's body: {errors, data, extensions} in that order, and a newline
    // (its prettyJSONStringify); compiled queries give neither errors (those went
    // to Apollo) nor extensions.
    const body = JSON.stringify({ data: result.data });
    const tags = shownTags(context);
    // An entry to store has its ETags (one per media type: hits reuse them);
    // one not stored is only shared with identical requests meanwhile, whose
    // answers get theirs as this one does, from the GET route's onSend hook.
    const entry: CachedResponse = obtained?.outcome === 'miss' && obtained.stores ? cacheEntry(body, tags) : { status: 200, body, tags };
    settle?.(entry);
    this.headers(request, reply, known, headers, tags);
    if (obtained) reply.header('x-cache', 'miss');
    // The hook would compute the same tag again (it keeps one already set).
    const etag = entry.etags?.[known.type];
    if (etag && request.method === 'GET' && reply.getHeader('cache-control') !== 'no-store') reply.header('etag', etag);
    return this.send(request, reply, known.type, body);
  }

  /** The headers in the order Apollo's plugins set them: the stages' (the rate limit), then cacheControl's. */
  private headers(request: FastifyRequest, reply: FastifyReply, { prepared }: KnownRequest, staged: readonly [string, string][], tags: readonly string[]): void {
    for (const [name, value] of staged) reply.header(name, value);
    const cacheable = request.method === 'GET';
    for (const [name, value] of answerCachingHeaders(request.graphqlStages, this.options.httpCaching, cacheable, () => prepared.policy, () => tags)) reply.header(name, value);
  }

  /** Sends the answer with the httpStatus stage's status (a result with data: 200). */
  private async send(request: FastifyRequest, reply: FastifyReply, type: string, body: string): Promise<true> {
    const { status } = answerStatus(request.graphqlStages, DATA, 200, () => false);
    this.answered++;
    await reply.code(status).type(type).send(`${body}\n`);
    return true;
  }
}

/** What the status stage needs to know of an answer given here: it has data, and no errors. */
const DATA = { data: true } as const;
