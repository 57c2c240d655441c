// Executes operations with graphql-jit instead of graphql-js's interpreter:
// each distinct document is compiled once into a JavaScript function, which
// runs the same resolvers about twice as fast. Plugged in through Apollo
// Server's gateway interface, whose `executor` replaces execution only; parsing,
// validation, plugins and error formatting stay Apollo's.
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, getVariableValues, printSchema } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { withInputDefaults } from './input-defaults.ts';

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

/**
 * Each distinct (document, operation) compiled once, shared by the gateway's
 * executor and the direct execution of known operations (direct-execution.ts);
 * keyed by the document's hash and the operation's name in it.
 */
export class CompiledQueries {
  private readonly compiled = new Map<string, CompiledQuery | ExecutionResult>();
  private readonly schema: GraphQLSchema;

  constructor(schema: GraphQLSchema) {
    this.schema = schema;
  }

  /** The compiled operation, or graphql-jit's errors for it (compiled on first use). */
  get(queryHash: string, document: DocumentNode, operationName: string | null | undefined): CompiledQuery | ExecutionResult {
    const key = `${queryHash}:${operationName ?? ''}`;
    let query = this.compiled.get(key);
    if (query) {
      this.compiled.delete(key);
    } else {
      query = compileQuery(this.schema, document, operationName ?? undefined);
      if (this.compiled.size >= MAX_COMPILED) this.compiled.delete(this.compiled.keys().next().value as string);
    }
    this.compiled.set(key, query);
    return query;
  }
}

export function jitGateway(schema: GraphQLSchema, compiled: CompiledQueries): GatewayInterface {
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
          const query = compiled.get(requestContext.queryHash, requestContext.document, requestContext.operationName);
          if (!isCompiledQuery(query)) return withGraphQLErrors(query);
          // Coerce variables with graphql-js first: its errors point at the variable
          // definition, which Apollo turns into a 400 BAD_USER_INPUT like graphql-js execution.
          const variables = getVariableValues(schema, requestContext.operation.variableDefinitions ?? [], requestContext.request.variables ?? {}, { maxErrors: 25 });
          if (variables.errors) return { errors: variables.errors };
          return withGraphQLErrors(await query.query(undefined, requestContext.context, withInputDefaults(schema, requestContext.operation, requestContext.request.variables ?? {})));
        },
      };
    },
    async stop() {},
  };
}
