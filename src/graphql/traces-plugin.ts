// The GraphQL pipeline's stages as spans, for both paths of /graphql: Apollo
// parses and validates a document (spans from its plugin hooks, added only
// when traces are on); both paths check the cost in PreparedOperation.check
// (graphql.cost) and run compiled queries through `executed`
// (graphql.execute); the response cache's lookup and store are spans of the
// cache itself (src/cache/traced-cache.ts). The operation's own span is the
// endpoint's (endpoint.ts).
import type { ApolloServerPlugin } from '@apollo/server';
import { childSpan, failed, inSpan, traces } from '../tracing/spans.ts';

/** Apollo's parsing and validation, each a span under the operation's. */
export function tracesPlugin<Context extends object>(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async parsingDidStart() {
          const span = childSpan('graphql.parse', {});
          return async (error) => {
            if (span && error) failed(span, error);
            span?.end();
          };
        },
        async validationDidStart() {
          const span = childSpan('graphql.validate', {});
          return async (errors) => {
            if (span && errors?.length) span.setAttribute('catalogue.graphql.validation_errors', errors.length);
            span?.end();
          };
        },
      };
    },
  };
}

/** Runs a compiled operation, in a graphql.execute span when traced (its loaders' batches are its children). */
export function executed<T>(run: () => Promise<T> | T): Promise<T> | T {
  if (!traces.tracer) return run();
  return inSpan('graphql.execute', {}, async () => run());
}
