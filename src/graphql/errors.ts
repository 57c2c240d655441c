// Errors a client can act on carry a code and, for bad input, HTTP 400.
// Anything else is an internal error: logged in full with the request id,
// masked on the wire outside development.
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { NotFoundError, ValidationError } from '../catalog/validation.ts';
import type { GraphQLContext } from './context.ts';

export function badInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}), http: { status: 400 } } });
}

/** Codes whose messages are written for clients and safe to show. */
const CLIENT_CODES = new Set([
  'BAD_USER_INPUT', 'NOT_FOUND', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE', 'OPERATION_NOT_TRUSTED',
]);

/** The HTTP status an error asks for (Apollo's own request errors carry one), if any. */
function httpStatus(error: unknown): number | undefined {
  const status = (error as { extensions?: { http?: { status?: unknown } } } | null)?.extensions?.http?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * A stack overflow outside any field: parsing (graphql-js) or compiling
 * (graphql-jit) a document nested thousands of levels deep. The client's doing,
 * and "Maximum call stack size exceeded" is nothing to show it.
 */
function tooDeep(error: unknown): boolean {
  if ((error as GraphQLError | null)?.path) return false;
  for (let cause = error; cause instanceof Error; cause = (cause as GraphQLError).originalError ?? cause.cause) {
    if (cause instanceof RangeError) return true;
  }
  return false;
}

function isClientError(error: unknown, code: unknown): boolean {
  const original = unwrapResolverError(error);
  if (original instanceof ValidationError || original instanceof NotFoundError || (typeof code === 'string' && CLIENT_CODES.has(code))) return true;
  // A 4xx without a code: Apollo's "Unsupported persisted query version",
  // "provided sha does not match query". Their messages are for the client.
  const status = httpStatus(error);
  return (status !== undefined && status >= 400 && status < 500) || tooDeep(error);
}

export function makeFormatError(options: { mask: boolean }) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ValidationError) {
      return { ...formatted, message: original.message, extensions: { code: 'BAD_USER_INPUT', field: original.field } };
    }
    if (original instanceof NotFoundError) {
      return { ...formatted, message: original.message, extensions: { code: 'NOT_FOUND' } };
    }
    if (isClientError(error, formatted.extensions?.code)) {
      const { stacktrace: _stack, http: _http, ...extensions } = formatted.extensions ?? {};
      // Apollo fills in INTERNAL_SERVER_ERROR when a request error has no code.
      if (extensions.code === 'INTERNAL_SERVER_ERROR') extensions.code = 'BAD_REQUEST';
      return { ...formatted, ...(tooDeep(error) ? { message: 'The document is nested too deeply.' } : {}), extensions };
    }
    if (!options.mask) return formatted;
    return { message: 'Internal server error', path: formatted.path, locations: formatted.locations, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

/** Logs every internal error with the id of the request it happened in. */
export function logInternalErrors(log: (details: Record<string, unknown>, message: string) => void): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          for (const error of errors) {
            if (isClientError(error, error.extensions?.code)) continue;
            const original = unwrapResolverError(error);
            log({
              requestId: contextValue.requestId, operationName, path: error.path,
              error: original instanceof Error ? original.stack ?? original.message : String(original),
            }, 'internal error in a GraphQL operation');
          }
        },
      };
    },
  };
}
