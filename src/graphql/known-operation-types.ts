// Validation rules graphql-js 16 lacks for HTTP requests (Apollo's pipeline,
// apollo.ts): an operation type the schema has no root for is the client's
// mistake, a 400 GRAPHQL_VALIDATION_FAILED (graphql-js 17 has
// KnownOperationTypesRule); without it, validation passes and execution fails
// with an error that has no code, which is masked as an internal error. And
// a subscription sent as an HTTP request is pointed at the transports that
// serve subscriptions (src/graphql/subscriptions/).
import { GraphQLError, type ValidationRule } from 'graphql';

export const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(new GraphQLError(`The schema has no ${node.operation} operations.`, { nodes: node }));
    }
  },
});

export const SUBSCRIPTIONS_ELSEWHERE = 'Subscriptions are not answered by HTTP requests: subscribe over graphql-ws (the WebSocket upgrade of /graphql) or Server-Sent Events (/graphql/stream); see docs/subscriptions.md.';

export const noSubscriptionsOverHttp: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === 'subscription' && context.getSchema().getSubscriptionType()) {
      context.reportError(new GraphQLError(SUBSCRIPTIONS_ELSEWHERE, { nodes: node }));
    }
  },
});
