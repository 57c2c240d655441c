// Turns a subscribe request (graphql-ws's subscribe message, an SSE request)
// into a LiveOperation the hub can run, with the checks every query gets
// from Apollo's pipeline (apollo.ts): trusted documents, the token limit
// while parsing, validation with the same rules, depth, aliases, directives,
// argument caps and cost (limits/), read access and the caller's rate-limit
// budget (access-plugin.ts). Refusals carry the status and code a query's
// would (400, 401, 429); the transports turn them into their own answers.
//
// A subscription's cost is its selection's cost for one product times the
// ids it watches (like `productsByIds`): that is what subscribing reads at
// once, and each later event costs one product's share. Events are not
// charged to the caller: the server sends them.
import crypto from 'node:crypto';
import {
  type DocumentNode, type FieldNode, type GraphQLFormattedError, GraphQLError, type GraphQLSchema, Kind,
  NoSchemaIntrospectionCustomRule, type OperationDefinitionNode, type SelectionSetNode, type ValidationRule,
  getOperationAST, getVariableValues, parse, print, specifiedRules, validate, valueFromAST, visit,
} from 'graphql';
import type { AccessControl, Caller } from '../../auth/access.ts';
import { rateLimitMessage, Unauthenticated } from '../../auth/access.ts';
import type { GraphQLLimits } from '../../config.ts';
import { rateLimitHeaders } from '../../ratelimit/headers.ts';
import { canonicalJson } from '../../util/canonical-json.ts';
import { costUnits } from '../cost.ts';
import { badInput, tooManyEntries } from '../errors.ts';
import { fragmentsByName } from '../fragments.ts';
import { parseId } from '../ids.ts';
import { knownOperationTypes } from '../known-operation-types.ts';
import { limitExceeded } from '../limits/limit-error.ts';
import { variableLimits, variableLimitsOf, type VariableLimits } from '../limits/limits-plugin.ts';
import { operationShape } from '../limits/operation-shape.ts';
import { tokenLimitError } from '../limits/token-limit.ts';
import type { LiveOperation } from './hub.ts';

/** What a client sends to subscribe (the GraphQL-over-HTTP request parameters). */
export interface SubscribeRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** A refusal: the errors to send, with the HTTP status (SSE) a query's would have, and rate-limit headers. */
export interface Refusal {
  status: number;
  errors: GraphQLFormattedError[];
  headers: [string, string][];
}

export type Prepared = { operation: LiveOperation; headers: [string, string][] } | { refusal: Refusal };

export interface LiveOperationsOptions {
  schema: GraphQLSchema;
  limits: GraphQLLimits;
  maxPageSize: number;
  /** Ids one subscription may watch (LIVE_MAX_IDS). */
  maxIds: number;
  /** When set, only these documents (hex sha256 → text) run (TRUSTED_DOCUMENTS=on). */
  trustedDocuments: Map<string, string> | undefined;
  introspection: boolean;
  access: AccessControl;
  rateLimitCostUnit: number;
  formatError(error: GraphQLError): GraphQLFormattedError;
}

/** A parsed and validated document, kept by its text. */
interface Checked {
  document: DocumentNode;
  errors: readonly GraphQLError[];
  /** The document with the ids argument's literal value (if any) emptied, printed: part of the selection key. */
  keyText?: string;
}

/**
 * The largest subscribe request a client may send, over either transport (a
 * graphql-ws message, an SSE request's body): its document is bounded by
 * GRAPHQL_MAX_TOKENS long before this, and whatever a subscription keeps of it
 * for its life stays below it.
 */
export const MAX_SUBSCRIBE_BYTES = 64 * 1024;

/** Distinct documents kept parsed and validated (the least recently used goes first). */
const MAX_DOCUMENTS = 1000;
const ROOT_FIELD = 'productChanged';
const IDS = 'ids';

export class LiveOperations {
  private readonly options: LiveOperationsOptions;
  private readonly byVariables: VariableLimits;
  private readonly rules: readonly ValidationRule[];
  private readonly documents = new Map<string, Checked>();

  constructor(options: LiveOperationsOptions) {
    this.options = options;
    this.byVariables = variableLimitsOf(options.limits, options.maxPageSize);
    this.rules = [...specifiedRules, knownOperationTypes, ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
  }

  /**
   * Checks what the caller sent, and charges its cost to the caller's
   * budget: a LiveOperation, or a refusal with its errors and status.
   * `admit` (the caps, capacity.ts) may refuse a checked operation before
   * anything is charged.
   */
  async prepare(request: SubscribeRequest, caller: Caller, admit?: (operation: LiveOperation) => Refusal | undefined): Promise<Prepared> {
    try {
      const operation = this.check(request);
      try {
        this.options.access.require(caller, 'read');
      } catch (error) {
        if (!(error instanceof Unauthenticated)) throw error;
        return this.refuse(401, new GraphQLError(error.message, { extensions: { code: 'UNAUTHENTICATED' } }), [['www-authenticate', error.challenge]]);
      }
      const refused = admit?.(operation.live);
      if (refused) return { refusal: refused };
      const headers: [string, string][] = [];
      if (this.options.access.rateLimited) {
        const cost = costUnits(operation.cost, this.options.rateLimitCostUnit);
        const decision = await this.options.access.spend(caller, cost);
        if (decision) {
          headers.push(...rateLimitHeaders(decision));
          if (!decision.allowed) {
            return this.refuse(429, new GraphQLError(rateLimitMessage(caller, decision, cost), {
              extensions: { code: 'RATE_LIMITED', cost, limit: decision.limit, remaining: decision.remaining, retryAfter: decision.retryAfterSeconds },
            }), headers);
          }
        }
      }
      return { operation: operation.live, headers };
    } catch (error) {
      if (error instanceof Refused) return { refusal: { status: 400, errors: error.errors.map((e) => this.options.formatError(e)), headers: [] } };
      throw error;
    }
  }

  private refuse(status: number, error: GraphQLError, headers: [string, string][] = []): { refusal: Refusal } {
    return { refusal: { status, errors: [this.options.formatError(error)], headers } };
  }

  /** The operation and its cost; throws Refused for a request no query would run either. */
  private check(request: SubscribeRequest): { live: LiveOperation; cost: number } {
    const { schema, limits } = this.options;
    const query = this.queryOf(request);
    if (request.variables !== undefined && request.variables !== null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
      throw new Refused([badRequest('variables must be an object')]);
    }
    if (request.operationName !== undefined && request.operationName !== null && typeof request.operationName !== 'string') {
      throw new Refused([badRequest('operationName must be a string')]);
    }
    const variables = (request.variables ?? {}) as Record<string, unknown>;
    const operationName = (request.operationName ?? undefined) as string | undefined;
    const checked = this.checked(query);
    if (checked.errors.length > 0) throw new Refused(checked.errors);
    const { document } = checked;
    const operation = getOperationAST(document, operationName);
    if (!operation) {
      throw new Refused([new GraphQLError(operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.', {
        extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
      })]);
    }
    if (operation.operation !== 'subscription') {
      throw new Refused([badRequest(`only subscriptions are served here; send a ${operation.operation} to POST /graphql`)]);
    }
    const shape = operationShape(document, operation);
    if (shape.depth > limits.maxDepth) throw new Refused([limitExceeded('QUERY_TOO_DEEP', 'query depth', shape.depth, limits.maxDepth)]);
    if (shape.aliases > limits.maxAliases) throw new Refused([limitExceeded('QUERY_TOO_MANY_ALIASES', 'alias count', shape.aliases, limits.maxAliases)]);
    if (shape.directives > limits.maxDirectives) throw new Refused([limitExceeded('QUERY_TOO_MANY_DIRECTIVES', 'directive count', shape.directives, limits.maxDirectives)]);
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 25 });
    if (coerced.errors) throw new Refused(coerced.errors.map((e) => withCode(e, 'BAD_USER_INPUT')));
    const byVariables = variableLimits(schema, document, operation, operationName, variables, this.byVariables);
    if ('refusal' in byVariables) throw new Refused([byVariables.refusal]);
    const { ids, idsVariable } = this.idsOf(document, operation, coerced.coerced);
    const cost = byVariables.cost * ids.length;
    if (cost > limits.maxCost) throw new Refused([limitExceeded('QUERY_TOO_COSTLY', `query cost (${byVariables.cost} a product, ${ids.length} ids)`, cost, limits.maxCost)]);
    // Only the operation's own variables, and not the ids: those are what subscribers of one selection differ in.
    const defined = (operation.variableDefinitions ?? []).map((v) => v.variable.name.value);
    const sent = Object.fromEntries(defined.filter((name) => name in variables).map((name) => [name, variables[name]]));
    const shared = idsVariable ? Object.fromEntries(Object.entries(sent).filter(([name]) => name !== idsVariable)) : sent;
    const text = idsVariable ? query : (checked.keyText ??= print(withoutIdsLiteral(document)));
    return {
      live: { key: `${operationName ?? ''}\n${text}\n${canonicalJson(shared)}`, document, operationName, variables: sent, idsVariable, ids },
      cost,
    };
  }

  /** The document's text: sent, or named by a trusted document's id. */
  private queryOf(request: SubscribeRequest): string {
    const documents = this.options.trustedDocuments;
    const persisted = (request.extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
    const id = typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
    let query = request.query;
    if ((query === undefined || query === null) && documents && id !== undefined) query = documents.get(id);
    if (query === undefined || query === null || query === '') {
      throw new Refused([badRequest(documents && id !== undefined ? 'This server runs only trusted documents, and this id is not one of them.' : 'query is missing: send the subscription document as `query`')]);
    }
    if (typeof query !== 'string') throw new Refused([badRequest('query must be a string')]);
    if (documents && !documents.has(crypto.createHash('sha256').update(query).digest('hex'))) {
      throw new Refused([new GraphQLError('This server runs only trusted documents (the operations in its codegen manifest), and this operation is not one of them. Send a listed document or its id.', {
        extensions: { code: 'OPERATION_NOT_TRUSTED' },
      })]);
    }
    return query;
  }

  private checked(query: string): Checked {
    let checked = this.documents.get(query);
    if (checked) {
      this.documents.delete(query);
    } else {
      checked = this.parseAndValidate(query);
      if (this.documents.size >= MAX_DOCUMENTS) this.documents.delete(this.documents.keys().next().value as string);
    }
    this.documents.set(query, checked);
    return checked;
  }

  private parseAndValidate(query: string): Checked {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.options.limits.maxTokens });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      const tokens = tokenLimitError(error);
      return { document: EMPTY, errors: [tokens ?? withCode(error, 'GRAPHQL_PARSE_FAILED')] };
    }
    const errors = validate(this.options.schema, document, this.rules).map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED'));
    return { document, errors };
  }

  /** The ids the root field watches (parsed, distinct, in order), and the variable giving them, if one does. */
  private idsOf(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): { ids: number[]; idsVariable: string | undefined } {
    const field = rootField(document, operation.selectionSet);
    const argument = field?.arguments?.find((a) => a.name.value === IDS);
    const definition = this.options.schema.getSubscriptionType()?.getFields()[ROOT_FIELD]?.args.find((a) => a.name === IDS);
    if (!field || !argument || !definition) throw new Refused([badInput('ids is required', IDS)]);
    const value = valueFromAST(argument.value, definition.type, variables) as unknown;
    if (!Array.isArray(value)) throw new Refused([badInput('ids must be a list of product ids', IDS)]);
    let ids: number[];
    try {
      ids = [...new Set(value.map((id) => parseId(String(id), IDS)))];
    } catch (error) {
      throw new Refused([error as GraphQLError]);
    }
    if (ids.length === 0) throw new Refused([badInput('ids must name at least one product', IDS)]);
    if (ids.length > this.options.maxIds) throw new Refused([tooManyEntries(IDS, this.options.maxIds, ids.length)]);
    // The variable can stand for the ids in the selection's key only where it is used for nothing else.
    const variable = argument.value.kind === Kind.VARIABLE ? argument.value.name.value : undefined;
    const uses = variable ? countVariableUses(document, variable) : 0;
    return { ids, idsVariable: uses === 1 ? variable : undefined };
  }
}

const EMPTY: DocumentNode = { kind: Kind.DOCUMENT, definitions: [] };

class Refused extends Error {
  readonly errors: readonly GraphQLError[];
  constructor(errors: readonly GraphQLError[]) {
    super(errors[0]?.message ?? 'refused');
    this.errors = errors;
  }
}

function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, originalError: error.originalError, extensions: { ...error.extensions, code } });
}

/** The subscription's one root field, through fragments if it is spread (validation allows exactly one). */
function rootField(document: DocumentNode, selectionSet: SelectionSetNode): FieldNode | undefined {
  const fragments = fragmentsByName(document);
  const find = (set: SelectionSetNode, seen: Set<string>): FieldNode | undefined => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === ROOT_FIELD) return selection;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const found = find(selection.selectionSet, seen);
        if (found) return found;
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        const found = fragment ? find(fragment.selectionSet, seen) : undefined;
        if (found) return found;
      }
    }
    return undefined;
  };
  return find(selectionSet, new Set());
}

function countVariableUses(document: DocumentNode, name: string): number {
  let uses = 0;
  visit(document, {
    VariableDefinition: () => false,
    Variable(node) { if (node.name.value === name) uses++; },
  });
  return uses;
}

/** The document with the root field's literal ids emptied: subscribers that differ only in them share a key. */
function withoutIdsLiteral(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      if (node.name.value !== ROOT_FIELD) return undefined;
      return { ...node, arguments: node.arguments?.map((a) => (a.name.value === IDS ? { ...a, value: { kind: Kind.LIST, values: [] } } : a)) };
    },
  });
}
