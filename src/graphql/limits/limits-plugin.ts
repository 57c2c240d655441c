// The GraphQL abuse limits' settings, and the limits of operations outside
// the request pipeline (subscriptions). For queries and mutations the limits
// are a stage of every request (../stages.ts), checked before anything
// executes and before the response cache is asked (the token limit is
// enforced earlier, while parsing: see token-limit.ts); the shape and what
// the variables make of the operation come from its prepared operation
// (../prepared-operations.ts).
import { type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getVariableValues } from 'graphql';
import type { GraphQLLimits } from '../../config.ts';
import { costOf } from '../cost.ts';
import type { RequestLimits } from '../prepared-operations.ts';
import { type ArgumentCaps, argumentCapError } from './argument-caps.ts';
import { limitExceeded } from './limit-error.ts';

/** The limits a request's variables can break, whatever the document's shape. */
export interface VariableLimits {
  caps: ArgumentCaps;
  maxCost: number;
}

/** Those limits of the configuration (GRAPHQL_MAX_COST, GRAPHQL_MAX_LIST_LENGTH, MAX_PAGE_SIZE). */
export function variableLimitsOf(limits: GraphQLLimits, maxPageSize: number): VariableLimits {
  return { caps: { maxPageSize, maxListLength: limits.maxListLength }, maxCost: limits.maxCost };
}

/** Those limits and the rate-limit unit (RATE_LIMIT_GRAPHQL_COST_UNIT), for the prepared operations. */
export function requestLimitsOf(limits: GraphQLLimits, maxPageSize: number, costUnit: number): RequestLimits {
  return { ...variableLimitsOf(limits, maxPageSize), costUnit };
}

/**
 * What the limits make of an operation with these variables (as sent): the
 * refusal (an argument over its cap, else a cost over the limit), or its
 * cost; for callers outside Apollo's pipeline that keep no prepared
 * operation (subscriptions: src/graphql/subscriptions/). Queries are checked
 * by PreparedOperation.check, with the same functions.
 */
export function variableLimits(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, _operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined, limits: VariableLimits): { refusal: GraphQLError } | { cost: number } {
  const { coerced } = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
  const capped = argumentCapError(schema, document, operation, coerced, limits.caps).error;
  if (capped) return { refusal: capped };
  const { cost } = costOf(schema, document, operation, coerced ?? variables ?? {});
  return cost > limits.maxCost ? { refusal: limitExceeded('QUERY_TOO_COSTLY', 'query cost', cost, limits.maxCost) } : { cost };
}
