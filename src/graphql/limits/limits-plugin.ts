// Refuses operations over the GraphQL abuse limits before anything executes
// (the token limit is enforced earlier, while parsing: see token-limit.ts).
// Runs in didResolveOperation, the first hook with both the validated
// document and the variables, which list sizes in the cost may come from;
// that is before the response cache is consulted, so a cached answer is no
// way around a limit. A refusal is thrown from here, which Apollo answers
// with the error's HTTP 400 (see limit-error.ts). The shape and what the
// variables make of the operation (argument caps, cost) come from its
// prepared operation (../prepared-operations.ts), which the fast path checks
// the same way.
import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getVariableValues } from 'graphql';
import type { GraphQLLimits } from '../../config.ts';
import type { GraphQLContext } from '../context.ts';
import { costOf } from '../cost.ts';
import type { PreparedOperations, RequestLimits } from '../prepared-operations.ts';
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

export function limitsPlugin(limits: GraphQLLimits, operations: PreparedOperations): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          if (!requestContext.operation) return; // no such operation in the document: Apollo refuses the request itself
          const { shape } = operations.forRequest(requestContext);
          if (shape.depth > limits.maxDepth) throw limitExceeded('QUERY_TOO_DEEP', 'query depth', shape.depth, limits.maxDepth);
          if (shape.aliases > limits.maxAliases) throw limitExceeded('QUERY_TOO_MANY_ALIASES', 'alias count', shape.aliases, limits.maxAliases);
          if (shape.directives > limits.maxDirectives) throw limitExceeded('QUERY_TOO_MANY_DIRECTIVES', 'directive count', shape.directives, limits.maxDirectives);
          const { refusal } = operations.checksFor(requestContext, requestContext.contextValue);
          if (refusal) throw refusal;
        },
      };
    },
  };
}
