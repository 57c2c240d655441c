// Refuses operations over the GraphQL abuse limits before anything executes
// (the token limit is enforced earlier, while parsing: see token-limit.ts).
// Runs in didResolveOperation, the first hook with both the validated
// document and the variables, which list sizes in the cost may come from;
// that is before the response cache is consulted, so a cached answer is no
// way around a limit. A refusal is thrown from here, which Apollo answers
// with the error's HTTP 400 (see limit-error.ts).
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLLimits } from '../../config.ts';
import type { GraphQLContext } from '../context.ts';
import { operationCost } from '../cost.ts';
import { argumentCapError } from './argument-caps.ts';
import { limitExceeded } from './limit-error.ts';
import { operationShape } from './operation-shape.ts';

export function limitsPlugin(limits: GraphQLLimits, maxPageSize: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, operationName, request }) {
          if (!operation) return; // no such operation in the document: Apollo refuses the request itself
          const shape = operationShape(document, operation);
          if (shape.depth > limits.maxDepth) throw limitExceeded('QUERY_TOO_DEEP', 'query depth', shape.depth, limits.maxDepth);
          if (shape.aliases > limits.maxAliases) throw limitExceeded('QUERY_TOO_MANY_ALIASES', 'alias count', shape.aliases, limits.maxAliases);
          if (shape.directives > limits.maxDirectives) throw limitExceeded('QUERY_TOO_MANY_DIRECTIVES', 'directive count', shape.directives, limits.maxDirectives);
          const capped = argumentCapError(schema, document, operation, request.variables, { maxPageSize, maxListLength: limits.maxListLength });
          if (capped) throw capped;
          const cost = operationCost(schema, document, request.variables, operationName);
          if (cost > limits.maxCost) throw limitExceeded('QUERY_TOO_COSTLY', 'query cost', cost, limits.maxCost);
        },
      };
    },
  };
}
