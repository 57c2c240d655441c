// Executes operations with graphql-jit instead of graphql-js's interpreter:
// each distinct document is compiled once into a JavaScript function, which
// runs the same resolvers about twice as fast. Plugged in through Apollo
// Server's gateway interface, whose `executor` replaces execution only; parsing,
// validation, plugins and error formatting stay Apollo's.
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { type ExecutionResult, GraphQLError, type GraphQLSchema, getVariableValues, printSchema } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/** Distinct documents kept compiled; the least recently used is dropped first. */
const MAX_COMPILED = 1000;

/**
 * graphql-jit reports errors with its own error objects, which lack the
 * `extensions` Apollo relies on (it then replaces them with a bare "Internal
 * server error" before our formatError ever sees them). Rebuild them as
 * graphql-js errors with the same message, path, locations and cause.
 */
function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
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

export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  const compiled = new Map<string, CompiledQuery | ExecutionResult>();
  let notify: ((context: { apiSchema: GraphQLSchema; coreSupergraphSdl: string }) => void) | undefined;
  return {
    onSchemaLoadOrUpdate(callback) {
      notify = callback;
      return () => { notify = undefined; };
    },
    async load() {
      notify?.({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return {
        executor: async (requestContext) => {
          // No operation by the requested name (or no name and several operations):
          // graphql-jit would run the only operation there is (it takes "" for no
          // name); answer like graphql-js instead, and Apollo makes it a 400
          // OPERATION_RESOLUTION_FAILURE.
          if (!requestContext.operation) return { errors: [unresolvedOperation(requestContext.request.operationName)] };
          const key = `${requestContext.queryHash}:${requestContext.operationName ?? ''}`;
          let query = compiled.get(key);
          if (query) {
            compiled.delete(key);
          } else {
            query = compileQuery(schema, requestContext.document, requestContext.operationName ?? undefined);
            if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
          }
          compiled.set(key, query);
          if (!isCompiledQuery(query)) return withGraphQLErrors(query);
          // Coerce variables with graphql-js first: its errors point at the variable
          // definition, which Apollo turns into a 400 BAD_USER_INPUT like graphql-js execution.
          const variables = getVariableValues(schema, requestContext.operation.variableDefinitions ?? [], requestContext.request.variables ?? {}, { maxErrors: 25 });
          if (variables.errors) return { errors: variables.errors };
          return withGraphQLErrors(await query.query(undefined, requestContext.context, requestContext.request.variables ?? {}));
        },
      };
    },
    async stop() {},
  };
}
