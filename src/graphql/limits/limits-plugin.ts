// Refuses operations over the GraphQL abuse limits before anything executes
// (the token limit is enforced earlier, while parsing: see token-limit.ts).
// Runs in didResolveOperation, the first hook with both the validated
// document and the variables, which list sizes in the cost may come from;
// that is before the response cache is consulted, so a cached answer is no
// way around a limit. A refusal is thrown from here, which Apollo answers
// with the error's HTTP 400 (see limit-error.ts).
import type { ApolloServerPlugin } from '@apollo/server';
import type { DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { GraphQLLimits } from '../../config.ts';
import type { GraphQLContext } from '../context.ts';
import { operationCost } from '../cost.ts';
import { type ArgumentCaps, argumentCapError } from './argument-caps.ts';
import { limitExceeded } from './limit-error.ts';
import { operationShape } from './operation-shape.ts';

/** The limits a request's variables can break, whatever the document's shape. */
export interface VariableLimits {
  caps: ArgumentCaps;
  maxCost: number;
}

/** Those limits of the configuration (GRAPHQL_MAX_COST, GRAPHQL_MAX_LIST_LENGTH, MAX_PAGE_SIZE). */
export function variableLimitsOf(limits: GraphQLLimits, maxPageSize: number): VariableLimits {
  return { caps: { maxPageSize, maxListLength: limits.maxListLength }, maxCost: limits.maxCost };
}

/**
 * What the limits make of an operation with these variables (as sent): the
 * refusal (an argument over its cap, else a cost over the limit), or its
 * cost. Apollo's plugin here throws the refusal; the answers given before
 * Apollo (known-operations.ts) leave a refused request to it.
 */
export function variableLimits(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined, limits: VariableLimits): { refusal: GraphQLError } | { cost: number } {
  const capped = argumentCapError(schema, document, operation, variables, limits.caps);
  if (capped) return { refusal: capped };
  const cost = operationCost(schema, document, variables, operationName);
  return cost > limits.maxCost ? { refusal: limitExceeded('QUERY_TOO_COSTLY', 'query cost', cost, limits.maxCost) } : { cost };
}

export function limitsPlugin(limits: GraphQLLimits, maxPageSize: number): ApolloServerPlugin<GraphQLContext> {
  const byVariables = variableLimitsOf(limits, maxPageSize);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, operationName, request }) {
          if (!operation) return; // no such operation in the document: Apollo refuses the request itself
          const shape = operationShape(document, operation);
          if (shape.depth > limits.maxDepth) throw limitExceeded('QUERY_TOO_DEEP', 'query depth', shape.depth, limits.maxDepth);
          if (shape.aliases > limits.maxAliases) throw limitExceeded('QUERY_TOO_MANY_ALIASES', 'alias count', shape.aliases, limits.maxAliases);
          if (shape.directives > limits.maxDirectives) throw limitExceeded('QUERY_TOO_MANY_DIRECTIVES', 'directive count', shape.directives, limits.maxDirectives);
          const checked = variableLimits(schema, document, operation, operationName, request.variables, byVariables);
          if ('refusal' in checked) throw checked.refusal;
        },
      };
    },
  };
}
