// An operation's variables as execution will see them, for the checks that run
// before it (abuse limits, cost): defaults from the operation applied, values
// coerced to their types (a single id given for a list becomes a list of one).
import { type GraphQLSchema, type OperationDefinitionNode, getVariableValues } from 'graphql';

export type Variables = Record<string, unknown>;

/**
 * The coerced variables; when they do not coerce, the values as sent (execution
 * refuses such a request with its own error, so no estimate made from them is
 * ever acted on beyond refusing earlier).
 */
export function operationVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, sent: Variables | null | undefined): Variables {
  return coercedVariables(schema, operation, sent) ?? sent ?? {};
}

/** The coerced variables, or undefined when they do not coerce (execution refuses the request with its own error). */
export function coercedVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, sent: Variables | null | undefined): Variables | undefined {
  return getVariableValues(schema, operation.variableDefinitions ?? [], sent ?? {}, { maxErrors: 1 }).coerced;
}
