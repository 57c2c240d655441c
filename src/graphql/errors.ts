// Errors a client can act on carry a code and, for bad input, HTTP 400.
// Anything else is an internal error: logged in full with the request id,
// masked on the wire outside development. graphql-js's "Did you mean ...?"
// hints reveal the schema to whoever probes it; they are dropped unless
// field suggestions are on (development by default).
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { NotFoundError, ValidationError } from '../catalog/validation.ts';
import type { GraphQLContext } from './context.ts';
import { LIMIT_CODES } from './limits/limit-error.ts';
import { tokenLimitError } from './limits/token-limit.ts';

export function badInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}), http: { status: 400 } } });
}

/** A number argument above its cap, e.g. "count must be at most 100 (got 101)". */
export function aboveMaximum(name: string, max: number, got: number): GraphQLError {
  return badInput(`${name} must be at most ${max} (got ${got})`, name);
}

/** A list argument longer than its cap, e.g. "ids must have at most 100 entries (got 101)". */
export function tooManyEntries(name: string, max: number, got: number): GraphQLError {
  return badInput(`${name} must have at most ${max} entries (got ${got})`, name);
}

/** Codes whose messages are written for clients and safe to show. */
const CLIENT_CODES = new Set([
  'BAD_USER_INPUT', 'NOT_FOUND', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE', 'OPERATION_NOT_TRUSTED',
  'UNAUTHENTICATED', 'RATE_LIMITED',
  ...LIMIT_CODES,
]);

/** graphql-js's hint at the end of a message, as Apollo's own suggestion masking matches it. */
const SUGGESTION = / ?Did you mean(.+?)\?$/;

function isClientError(error: unknown, code: unknown): boolean {
  const original = unwrapResolverError(error);
  return original instanceof ValidationError || original instanceof NotFoundError || (typeof code === 'string' && CLIENT_CODES.has(code));
}

export function makeFormatError(options: { mask: boolean; suggestions: boolean }) {
  const format = (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ValidationError) {
      return { ...formatted, message: original.message, extensions: { code: 'BAD_USER_INPUT', field: original.field } };
    }
    if (original instanceof NotFoundError) {
      return { ...formatted, message: original.message, extensions: { code: 'NOT_FOUND' } };
    }
    if (isClientError(error, formatted.extensions?.code)) {
      const { stacktrace: _stack, http: _http, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions };
    }
    if (!options.mask) return formatted;
    return { message: 'Internal server error', path: formatted.path, locations: formatted.locations, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    // The parser's "more than N tokens" becomes the token limit's own error.
    const tokens = tokenLimitError(error);
    const result = tokens ? format(tokens.toJSON(), tokens) : format(formatted, error);
    return options.suggestions ? result : { ...result, message: result.message.replace(SUGGESTION, '') };
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
            // reqId: the same key as every other line the request logs.
            log({
              reqId: contextValue.requestId, operationName, path: error.path,
              error: original instanceof Error ? original.stack ?? original.message : String(original),
            }, 'internal error in a GraphQL operation');
          }
        },
      };
    },
  };
}
