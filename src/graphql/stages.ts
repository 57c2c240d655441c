// The stages every GraphQL request passes through, in order, each defined
// once here (envelop's model: small units with a hook or two, run by one
// runner). Both ways a request is answered run these same units:
//
// - a known operation (endpoint.ts, known-operation.ts): the runner below,
//   then the cache, execution and the answer's headers, with no Apollo in
//   between;
// - anything else: Apollo Server, whose plugins for these concerns are thin
//   adapters (`stagesPlugin` here, and the cache, cache-control and status
//   adapters) that call the same units from its hooks. Apollo keeps what only
//   it does: parsing, validation, persisted queries, wording errors.
//
// The order is one list, STAGE_ORDER:
//
//  1. metrics: the request's operation record (name, type) for its log line
//     and the graphql_operation_* metrics;
//  2. trustedDocuments: only listed documents run (TRUSTED_DOCUMENTS=on);
//  3. limits: depth, aliases, directives, argument caps, the cost limit;
//  4. access: read or write access, then the operation's cost taken from the
//     caller's rate-limit budget;
//  5. cache: the response cache asked (a hit answers here), and a miss's
//     result stored (response-cache-plugin.ts);
//  6. execute: the compiled query (or graphql-js) runs;
//  7. cacheControl: Cache-Control and surrogate keys (cache-control-plugin.ts);
//  8. httpStatus: the status by GraphQL over HTTP (http-status.ts).
//
// Each records its name in the request's trace as it runs (a stage that is
// off by configuration runs and decides nothing), so a test can tell, for
// every kind of request, that none was skipped (test/graphql/stages.test.ts).
// A result with errors is worded by Apollo (errors.ts logs the internal ones).
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import { GraphQLError, type OperationDefinitionNode } from 'graphql';
import { type AccessControl, type Caller, rateLimitMessage, Unauthenticated } from '../auth/access.ts';
import type { GraphQLLimits } from '../config.ts';
import { noteResolved, type OperationRecord } from '../observability/graphql-operations.ts';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { RateLimitDecision } from '../ratelimit/limiter.ts';
import type { GraphQLContext } from './context.ts';
import { limitExceeded } from './limits/limit-error.ts';
import type { PreparedOperation, PreparedOperations, RequestChecks } from './prepared-operations.ts';
import { notTrusted } from './trusted-documents.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The stages a GraphQL request ran, in order (set by the /graphql endpoint). */
    graphqlStages: StageTrace | undefined;
  }
}

/** The stages, in the order every request passes them. */
export const STAGE_ORDER = ['metrics', 'trustedDocuments', 'limits', 'access', 'cache', 'execute', 'cacheControl', 'httpStatus'] as const;
export type StageName = typeof STAGE_ORDER[number];

/** The names of the stages a request ran, in order (its trace). */
export type StageTrace = string[];

/** Notes that `stage` ran for the request whose trace this is. */
export function ran(trace: StageTrace | undefined, stage: StageName): void {
  trace?.push(stage);
}

/** What the operation stages see of one request, whichever way it came. */
export interface StageRequest {
  readonly trace: StageTrace | undefined;
  readonly caller: Caller;
  /** The document's sha256. */
  readonly hash: string;
  /** The operation the request names; undefined when the document has none by that name. */
  readonly operation: OperationDefinitionNode | undefined;
  readonly record: OperationRecord;
  /** The prepared operation and what this request's variables make of it. */
  prepared(): PreparedOperation;
  checks(): RequestChecks;
  /** A rate-limit decision taken already (a request the known-operation path handed to Apollo). */
  readonly handedOver: { decision: RateLimitDecision | undefined } | undefined;
  /** The decision the access stage took, once taken. */
  decision?: RateLimitDecision;
  /** Sets a header of the answer. */
  header(name: string, value: string): void;
}

/** A stage that checks the resolved operation before anything is looked up or run; it refuses by throwing a GraphQLError. */
export interface OperationStage {
  readonly name: StageName;
  resolved(request: StageRequest): Promise<void> | void;
}

/** metrics: the operation record names the operation (only names from a parsed document, never a free-form operationName). */
export function metricsStage(): OperationStage {
  return {
    name: 'metrics',
    resolved({ record, operation, hash }) {
      noteResolved(record, operation);
      // The operation span's graphql.document.hash (src/graphql/endpoint.ts).
      record.hash = hash;
    },
  };
}

/** trustedDocuments: with a manifest, only its documents run (the text of a listed id is supplied by trustedDocumentsPlugin). */
export function trustedDocumentsStage(documents: Map<string, string> | undefined): OperationStage {
  return {
    name: 'trustedDocuments',
    resolved({ hash }) {
      if (documents && !documents.has(hash)) {
        throw notTrusted('This server runs only trusted documents (the operations in its codegen manifest), and this operation is not one of them. Send a listed document or its id.');
      }
    },
  };
}

/**
 * limits: the shape (depth, aliases, directives) and what the variables make
 * of the operation (argument caps, cost), before the response cache is asked
 * (a cached answer is no way around a limit). A refusal is a 400 (limit-error.ts).
 */
export function limitsStage(limits: GraphQLLimits): OperationStage {
  return {
    name: 'limits',
    resolved(request) {
      if (!request.operation) return; // no such operation in the document: Apollo refuses the request itself
      const { shape } = request.prepared();
      if (shape.depth > limits.maxDepth) throw limitExceeded('QUERY_TOO_DEEP', 'query depth', shape.depth, limits.maxDepth);
      if (shape.aliases > limits.maxAliases) throw limitExceeded('QUERY_TOO_MANY_ALIASES', 'alias count', shape.aliases, limits.maxAliases);
      if (shape.directives > limits.maxDirectives) throw limitExceeded('QUERY_TOO_MANY_DIRECTIVES', 'directive count', shape.directives, limits.maxDirectives);
      const { refusal } = request.checks();
      if (refusal) throw refusal;
    },
  };
}

/**
 * access: mutations need a key (queries too with API_KEYS_FOR_READS=required),
 * a 401; then the operation's cost (src/graphql/cost.ts, in units of
 * RATE_LIMIT_GRAPHQL_COST_UNIT points) is taken from the caller's budget, a
 * 429 once it is spent. Taken once per request: a request handed over carries
 * the decision already taken.
 */
export function accessStage(access: AccessControl): OperationStage {
  return {
    name: 'access',
    resolved(request) {
      const { caller, operation } = request;
      try {
        access.require(caller, operation?.operation === 'mutation' ? 'write' : 'read');
      } catch (error) {
        if (!(error instanceof Unauthenticated)) throw error;
        throw new GraphQLError(error.message, {
          extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: new HeaderMap([['www-authenticate', error.challenge]]) } },
        });
      }
      if (!access.rateLimited) return;
      return charge(access, request);
    },
  };
}

/** The access stage's charge: the operation's cost taken from the caller's budget (a 429 once it is spent). */
async function charge(access: AccessControl, request: StageRequest): Promise<void> {
  const { caller } = request;
  const cost = request.checks().units;
  const decision = request.handedOver ? request.handedOver.decision : await access.spend(caller, cost);
  request.decision = decision;
  if (!decision) return;
  for (const [name, value] of rateLimitHeaders(decision)) request.header(name, value);
  if (decision.allowed) return;
  throw new GraphQLError(rateLimitMessage(caller, decision, cost), {
    extensions: { code: 'RATE_LIMITED', cost, limit: decision.limit, remaining: decision.remaining, retryAfter: decision.retryAfterSeconds, http: { status: 429 } },
  });
}

/** The operation stages of /graphql, in STAGE_ORDER. */
export function operationStages(options: { access: AccessControl; limits: GraphQLLimits; trustedDocuments: Map<string, string> | undefined }): readonly OperationStage[] {
  return [metricsStage(), trustedDocumentsStage(options.trustedDocuments), limitsStage(options.limits), accessStage(options.access)];
}

/**
 * Runs the operation stages for a request: each begins in order, as Apollo
 * begins its plugins' didResolveOperation hooks (so the budget is taken even
 * when the limits refuse, as it always was). `settle`: wait for every stage
 * before throwing the first refusal in order (the known-operation path, which
 * hands the decision taken to Apollo); else the first refusal to come is
 * thrown at once, as Apollo's own Promise.all does.
 */
export async function runOperationStages(stages: readonly OperationStage[], request: StageRequest, settle: boolean): Promise<void> {
  // Stages that decide at once return nothing: only the others' promises are
  // waited for (a known query without rate limits waits for none).
  let running: Promise<void>[] | undefined;
  let refusal: { error: unknown } | undefined;
  for (const stage of stages) {
    ran(request.trace, stage.name);
    try {
      const pending = stage.resolved(request);
      if (pending) (running ??= []).push(pending);
    } catch (error) {
      refusal ??= { error };
    }
  }
  // A stage refusing at once comes first in order: the stages after it still ran (as in Apollo), their refusals unseen.
  if (refusal) {
    if (running && settle) await Promise.allSettled(running);
    else for (const pending of running ?? []) pending.catch(() => { /* the first refusal is the answer */ });
    throw refusal.error;
  }
  if (!running) return;
  if (!settle) {
    await Promise.all(running);
    return;
  }
  for (const outcome of await Promise.allSettled(running)) if (outcome.status === 'rejected') throw outcome.reason;
}

/** What the operation stages see of a request in Apollo's pipeline. */
function apolloStageRequest(requestContext: GraphQLRequestContext<GraphQLContext>, operations: PreparedOperations): StageRequest {
  const { contextValue, queryHash, operation, response } = requestContext;
  const resolved = requestContext as Parameters<PreparedOperations['forRequest']>[0];
  return {
    trace: contextValue.stages,
    caller: contextValue.caller,
    hash: queryHash!,
    operation,
    record: contextValue.operation,
    prepared: () => operations.forRequest(resolved),
    checks: () => operations.checksFor(resolved, contextValue),
    handedOver: contextValue.handedOver,
    header: (name, value) => response.http.headers.set(name, value),
  };
}

/**
 * Apollo's adapter of the operation stages and of execution: the stages run
 * in didResolveOperation (the first hook with the validated document and the
 * variables), and execution is noted when Apollo begins it.
 */
export function stagesPlugin(stages: readonly OperationStage[], operations: PreparedOperations): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          await runOperationStages(stages, apolloStageRequest(requestContext, operations), false);
        },
        async executionDidStart({ contextValue }) {
          ran(contextValue.stages, 'execute');
        },
      };
    },
  };
}
