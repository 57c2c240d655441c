// Errors a client can act on carry a code and, for bad input, HTTP 400.
// Anything else is an internal error: logged in full, masked on the wire.
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { NotFoundError, ValidationError } from '../catalog/validation.ts';

export function badInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}), http: { status: 400 } } });
}

/** Codes whose messages are written for clients and safe to show. */
const CLIENT_CODES = new Set([
  'BAD_USER_INPUT', 'NOT_FOUND', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE',
]);

export function makeFormatError(options: { mask: boolean; log: (message: string, details: Record<string, unknown>) => void }) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ValidationError) {
      return { ...formatted, message: original.message, extensions: { code: 'BAD_USER_INPUT', field: original.field } };
    }
    if (original instanceof NotFoundError) {
      return { ...formatted, message: original.message, extensions: { code: 'NOT_FOUND' } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      const { stacktrace: _stack, http: _http, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions };
    }
    options.log('internal error in a GraphQL operation', {
      path: formatted.path, error: original instanceof Error ? original.stack ?? original.message : String(original),
    });
    if (!options.mask) return formatted;
    return { message: 'Internal server error', path: formatted.path, locations: formatted.locations, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}
