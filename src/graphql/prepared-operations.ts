// The registry of prepared operations: for each operation a document names
// (its sha256, Apollo's queryHash, and the operationName as sent), what every
// request of it needs and what does not change from one request to the next,
// worked out once: the parsed document and operation, its shape (depth,
// aliases, directives), its cache policy (the schema's @cacheControl hints),
// its graphql-jit compiled function, and its cost and argument caps when no
// variable can change them. What does depend on the request (the variables,
// coerced once per request, then the caps, the cost and the response cache
// key they give) is worked out by `check` and `cacheKey`, with the same
// functions for every path.
//
// The stages of every request read it (stages.ts), whichever way it comes:
// through Apollo's adapters and executor (`forRequest`, `checksFor`), or
// through the stages' runner (fast-path.ts), which takes an operation once
// Apollo has run it here and passed every check that depends on the document
// alone (`checked`, set by `learningPlugin`). Each request's
// variables are coerced once (graphql-js's coercion, which applies the
// defaults of input object fields too) and those values are what the caps,
// the cost and the compiled query see.
import type { ApolloServerPlugin } from '@apollo/server';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import {
  type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getOperationAST, getVariableValues, printSchema,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { graphqlCacheKey } from '../cache/cache-key.ts';
import { childSpan, traces } from '../tracing/spans.ts';
import { type CachePolicy, cachePolicy } from './cache-hints.ts';
import type { GraphQLContext } from './context.ts';
import { costOf, costUnits, isCheapRead, readsByKey } from './cost.ts';
import { type ArgumentCaps, argumentCapError } from './limits/argument-caps.ts';
import { limitExceeded } from './limits/limit-error.ts';
import { type OperationShape, operationShape } from './limits/operation-shape.ts';
import { executed } from './traces-plugin.ts';

type Variables = Record<string, unknown>;

/** Distinct (document, operation name) pairs kept; the least recently used is dropped first. */
const MAX_PREPARED = 1000;

/** The limits a request's variables can break, and what a rate-limit unit is worth in cost points. */
export interface RequestLimits {
  caps: ArgumentCaps;
  maxCost: number;
  /** Cost points per rate-limit unit (RATE_LIMIT_GRAPHQL_COST_UNIT). */
  costUnit: number;
}

/** What one request's variables make of an operation. */
export interface RequestChecks {
  /** The variables coerced to their types, defaults applied; undefined when they do not coerce. */
  coerced: Variables | undefined;
  /** Why they do not coerce (graphql-js's errors, as execution gives them: a 400 BAD_USER_INPUT). */
  errors: readonly GraphQLError[] | undefined;
  /** An argument over its cap, else a cost over GRAPHQL_MAX_COST: a 400 naming it. */
  refusal: GraphQLError | undefined;
  /** The estimated cost (src/graphql/cost.ts), and what it takes from a rate-limit budget. */
  cost: number;
  units: number;
  /** A cheap read (src/graphql/cost.ts, CHEAP_READ_MAX_COST): the response cache's doorkeeper stores it from its key's second sighting and looks it up from its third. */
  cheap: boolean;
}

export class PreparedOperation {
  /** The document's sha256 (Apollo's queryHash) and the parsed, validated document. */
  readonly hash: string;
  readonly document: DocumentNode;
  /** The operation the request names; undefined when the document has none by that name. */
  readonly operation: OperationDefinitionNode | undefined;
  /** The operationName as sent (undefined for none): part of the response cache key. */
  readonly sentName: string | undefined;
  /**
   * Apollo has run it here and every check that depends on the document alone
   * passed (validation, trusted documents, the shape limits): a query so
   * checked may be answered on the fast path, its request-dependent checks
   * made there per request.
   */
  checked = false;
  private readonly schema: GraphQLSchema;
  private readonly limits: RequestLimits;
  private shapeMemo: OperationShape | undefined;
  private policyMemo: CachePolicy | undefined;
  private compiledMemo: CompiledQuery | ExecutionResult | undefined;
  /** Known once a request found no argument of it to read: no variables can take it over a cap. */
  private uncapped = false;
  /** Its cost, once a request found no list size in it given by a variable. */
  private fixedCost: number | undefined;
  private byKeyMemo: boolean | undefined;
  private declaredMemo: readonly string[] | undefined;

  constructor(schema: GraphQLSchema, limits: RequestLimits, hash: string, document: DocumentNode, sentName: string | undefined) {
    this.schema = schema;
    this.limits = limits;
    this.hash = hash;
    this.document = document;
    this.sentName = sentName;
    this.operation = getOperationAST(document, sentName) ?? undefined;
  }

  /** The operation's name in the document (null for an anonymous one). */
  get operationName(): string | null {
    return this.operation?.name?.value ?? null;
  }

  get shape(): OperationShape {
    return this.shapeMemo ??= this.operation ? operationShape(this.document, this.operation) : { depth: 0, aliases: 0, directives: 0 };
  }

  get policy(): CachePolicy {
    return this.policyMemo ??= cachePolicy(this.schema, this.document, this.sentName);
  }

  /** The compiled operation, or graphql-jit's errors for it (compiled on first use). */
  get compiled(): CompiledQuery | ExecutionResult {
    return this.compiledMemo ??= compileQuery(this.schema, this.document, this.sentName);
  }

  /** Every root field it selects reads products by their ids (src/graphql/cost.ts). */
  get readsByKey(): boolean {
    return this.byKeyMemo ??= this.operation !== undefined && readsByKey(this.document, this.operation);
  }

  /** What these variables (as sent) make of it (a graphql.cost span when traced, for both paths). */
  check(sent: Variables | null | undefined): RequestChecks {
    if (!traces.tracer) return this.checkVariables(sent);
    const span = childSpan('graphql.cost', {});
    const checks = this.checkVariables(sent);
    span?.setAttributes({ 'catalogue.graphql.cost': checks.cost, 'catalogue.graphql.refused': checks.refusal !== undefined || checks.errors !== undefined });
    span?.end();
    return checks;
  }

  /** Coerced once, then the argument caps and the cost. */
  private checkVariables(sent: Variables | null | undefined): RequestChecks {
    const operation = this.operation;
    if (!operation) return { coerced: sent ?? {}, errors: undefined, refusal: undefined, cost: 0, units: costUnits(0, this.limits.costUnit), cheap: false };
    const coercion = getVariableValues(this.schema, operation.variableDefinitions ?? [], sent ?? {}, { maxErrors: 25 });
    const { coerced } = coercion;
    let refusal: GraphQLError | undefined;
    if (!this.uncapped) {
      const capped = argumentCapError(this.schema, this.document, operation, coerced, this.limits.caps);
      refusal = capped.error;
      if (!capped.readArguments) this.uncapped = true;
    }
    let cost = this.fixedCost;
    if (cost === undefined) {
      // Variables that do not coerce are costed as sent: execution refuses them, nothing else is acted on.
      const estimate = costOf(this.schema, this.document, operation, coerced ?? sent ?? {});
      cost = estimate.cost;
      if (!estimate.variableSized) this.fixedCost = cost;
    }
    refusal ??= cost > this.limits.maxCost ? limitExceeded('QUERY_TOO_COSTLY', 'query cost', cost, this.limits.maxCost) : undefined;
    return { coerced, errors: coercion.errors, refusal, cost, units: costUnits(cost, this.limits.costUnit), cheap: isCheapRead(this.readsByKey, cost) };
  }

  /**
   * The response cache key of its result (src/cache/cache-key.ts): the
   * document's hash, the operation name, and the variables it declares.
   */
  cacheKey(sent: Variables | null | undefined): string {
    return graphqlCacheKey(this.hash, this.sentName, this.declaredVariables, sent);
  }

  /** The names of the variables the operation declares. */
  private get declaredVariables(): readonly string[] {
    return this.declaredMemo ??= (this.operation?.variableDefinitions ?? []).map(({ variable }) => variable.name.value);
  }
}

/** What Apollo's hooks (and its gateway executor) know of a request once its operation is resolved. */
interface ResolvedRequest {
  queryHash: string;
  document: DocumentNode;
  request: { operationName?: string | null; variables?: Variables | null };
}

export class PreparedOperations {
  private readonly schema: GraphQLSchema;
  private readonly limits: RequestLimits;
  private readonly prepared = new Map<string, PreparedOperation>();
  /** Document text → its hash, for requests that send the text (POST, GET with `query`): texts Apollo has run. */
  private readonly hashes = new Map<string, string>();
  /** Apollo's path: each request's checks (by its context), made once whichever hook asks first. */
  private readonly checks = new WeakMap<GraphQLContext, RequestChecks>();

  constructor(schema: GraphQLSchema, limits: RequestLimits) {
    this.schema = schema;
    this.limits = limits;
  }

  /** The prepared operation for a document (as Apollo parsed it) and the operationName sent; made on first use. */
  prepare(hash: string, document: DocumentNode, sentName: string | undefined): PreparedOperation {
    const key = `${hash}:${sentName ?? ''}`;
    let prepared = this.prepared.get(key);
    if (prepared) {
      this.prepared.delete(key); // re-inserted last: least recently used first
    } else {
      prepared = new PreparedOperation(this.schema, this.limits, hash, document, sentName);
      if (this.prepared.size >= MAX_PREPARED) this.prepared.delete(this.prepared.keys().next().value as string);
    }
    this.prepared.set(key, prepared);
    return prepared;
  }

  /** The prepared operation of a request in Apollo's pipeline (its document parsed and validated). */
  forRequest({ queryHash, document, request }: ResolvedRequest): PreparedOperation {
    return this.prepare(queryHash, document, request.operationName ?? undefined);
  }

  /** The checks of a request in Apollo's pipeline (`context`: its context): made by whichever hook asks first, then shared. */
  checksFor(requestContext: ResolvedRequest, context: GraphQLContext): RequestChecks {
    let checks = this.checks.get(context);
    if (!checks) this.checks.set(context, checks = this.forRequest(requestContext).check(requestContext.request.variables));
    return checks;
  }

  /**
   * A query the fast path may answer: one Apollo has run here with every
   * check that depends on the document passed, named by the document's hash
   * (or its text) and the operationName as sent.
   */
  checkedQuery(hash: string | undefined, text: string | undefined, sentName: string | undefined): PreparedOperation | undefined {
    const documentHash = hash ?? (text === undefined ? undefined : this.hashes.get(text));
    const prepared = documentHash === undefined ? undefined : this.prepared.get(`${documentHash}:${sentName ?? ''}`);
    return prepared?.checked ? prepared : undefined;
  }

  /**
   * The Apollo plugin that marks operations checked. It listens in
   * responseForOperation, which Apollo calls only once every
   * didResolveOperation hook (trusted documents, the limits, access and the
   * rate limit) has passed: it must come before the response cache's in the
   * list, which may answer the request there.
   */
  learningPlugin(): ApolloServerPlugin<GraphQLContext> {
    return {
      requestDidStart: async () => ({
        responseForOperation: async (requestContext) => {
          const { operation, source, queryHash, document, request } = requestContext;
          // Queries, sent by hash or with their text (the hash is the text's).
          if (operation?.operation !== 'query' || source === undefined || queryHash === undefined) return null;
          const prepared = this.forRequest({ queryHash, document, request });
          if (prepared.checked) return null;
          prepared.checked = true;
          if (this.hashes.size >= MAX_PREPARED) this.hashes.delete(this.hashes.keys().next().value as string);
          this.hashes.set(source, prepared.hash);
          return null;
        },
      }),
    };
  }

  /**
   * Executes Apollo's operations with their graphql-jit compiled functions
   * instead of graphql-js's interpreter (the same resolvers, about twice as
   * fast), through Apollo Server's gateway interface, whose `executor`
   * replaces execution only: parsing, validation, plugins and error
   * formatting stay Apollo's.
   */
  jitGateway(): GatewayInterface {
    const { schema } = this;
    let notify: ((context: { apiSchema: GraphQLSchema; coreSupergraphSdl: string }) => void) | undefined;
    return {
      onSchemaLoadOrUpdate(callback) {
        notify = callback;
        return () => { notify = undefined; };
      },
      load: async () => {
        notify?.({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
        return {
          executor: async (requestContext) => {
            // No operation by the requested name (or no name and several operations):
            // graphql-jit would run the only operation there is (it takes "" for no
            // name); answer like graphql-js instead, and Apollo makes it a 400
            // OPERATION_RESOLUTION_FAILURE.
            if (!requestContext.operation) return { errors: [unresolvedOperation(requestContext.request.operationName)] };
            const compiled = this.forRequest(requestContext).compiled;
            if (!isCompiledQuery(compiled)) return withGraphQLErrors(compiled);
            // graphql-js's coercion errors point at the variable definition:
            // Apollo makes them a 400 BAD_USER_INPUT, as with graphql-js execution.
            const context = requestContext.context as GraphQLContext;
            const { coerced, errors } = this.checksFor(requestContext, context);
            if (errors) return { errors };
            // Executed already by the stages' runner, which handed its errors over to be worded.
            if (context.handedOver?.executed) return withGraphQLErrors(context.handedOver.executed);
            return withGraphQLErrors(await executed(() => compiled.query(undefined, context, coerced)));
          },
        };
      },
      async stop() {},
    };
  }
}

/**
 * graphql-jit reports errors with its own error objects, which lack the
 * `extensions` Apollo relies on (it then replaces them with a bare "Internal
 * server error" before our formatError ever sees them). Rebuild them as
 * graphql-js errors with the same message, path, locations and cause.
 */
export function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => {
    const rebuilt = new GraphQLError(error.message, {
      path: error.path,
      originalError: error.originalError ?? undefined,
      extensions: error.extensions ?? undefined,
    });
    if (error.locations) Object.defineProperty(rebuilt, 'locations', { value: error.locations, enumerable: true });
    return rebuilt;
  });
  return { ...result, errors };
}

/** graphql-js's error for an operation name that names no operation of the document. */
function unresolvedOperation(operationName: string | null | undefined): GraphQLError {
  return new GraphQLError(operationName != null
    ? `Unknown operation named "${operationName}".`
    : 'Must provide operation name if query contains multiple operations.');
}
