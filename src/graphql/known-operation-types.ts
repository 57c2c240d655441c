// A validation rule graphql-js 16 lacks (17 has KnownOperationTypesRule): an
// operation type the schema has no root for (there is no Subscription) is the
// client's mistake, a 400 GRAPHQL_VALIDATION_FAILED. Without it, validation
// passes and execution fails with an error that has no code, which is masked
// as an internal error.
import { GraphQLError, type ValidationRule } from 'graphql';

export const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(new GraphQLError(`The schema has no ${node.operation} operations.`, { nodes: node }));
    }
  },
});
