// Errors a client can act on carry a code (their HTTP status: http-status.ts).
// Postgres being unavailable is SERVICE_UNAVAILABLE (HTTP 503 with
// Retry-After: the client may retry); an expensive read the process's limit
// refused is EXPENSIVE_READS_LIMITED (HTTP 429 with Retry-After). Anything else is an internal error:
// logged in full with the request id, masked on the wire outside development.
// graphql-js's "Did you mean ...?" hints reveal the schema to whoever probes
// it; they are dropped unless field suggestions are on (development by default).
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { NotFoundError, ValidationError } from '../catalog/model/validation.ts';
import { ExpensiveReadRefused } from '../catalog/browse/expensive-reads.ts';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/failures/unavailable.ts';
import type { GraphQLContext } from './context.ts';
import { LIMIT_CODES } from './limits/limit-error.ts';
import { tokenLimitError } from './limits/token-limit.ts';

export function badInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}), http: { status: 400 } } });
}

/** An argument check's ValidationError ("query: must ...") as the API's argument errors read ("query must ..."). */
export function fromValidationError(error: ValidationError): GraphQLError {
  return badInput(error.message.replace(`${error.field}: `, `${error.field} `), error.field);
}

/** A number argument above its cap, e.g. "count must be at most 100 (got 101)". */
export function aboveMaximum(name: string, max: number, got: number): GraphQLError {
  return badInput(`${name} must be at most ${max} (got ${got})`, name);
}

/** A list argument longer than its cap, e.g. "ids must have at most 100 entries (got 101)". */
export function tooManyEntries(name: string, max: number, got: number): GraphQLError {
  return badInput(`${name} must have at most ${max} entries (got ${got})`, name);
}

/** An idempotency key already used for a create with other content (REST's 422). */
export function idempotencyKeyReused(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'IDEMPOTENCY_KEY_REUSED' } });
}

/** A conditional write found the product at another version (REST's 412), with the version it is at now. */
export function versionConflict(message: string, currentVersion: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'CONFLICT', currentVersion } });
}

/** A write that could not get its turn on a contended product: 503 with Retry-After (http-status.ts), nothing written. */
export function writeContention(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'WRITE_CONTENTION' } });
}

/** A `data:load` is replacing the catalogue: 503 with Retry-After (http-status.ts), nothing written. */
export function catalogueReloading(message: string, retryAfterSeconds: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'CATALOGUE_RELOADING', retryAfter: retryAfterSeconds } });
}

/** A REST 404's equivalent for a mutation. */
export function notFound(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'NOT_FOUND' } });
}

/**
 * Sidecar mode: the legacy service (the source of truth) could not take the
 * write: 503 with Retry-After (http-status.ts). `accepted`: it did take it,
 * but it could not be read back yet (do not send it again).
 */
export function legacyUnavailable(message: string, retryAfterSeconds: number, accepted = false): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'LEGACY_UNAVAILABLE', retryAfter: retryAfterSeconds, ...(accepted ? { accepted: true } : {}) } });
}

/** The code of an expensive read the limit refused (src/catalog/browse/expensive-reads.ts): 429 with Retry-After (http-status.ts). */
export const EXPENSIVE_READS_LIMITED = 'EXPENSIVE_READS_LIMITED';

/** Codes whose messages are written for clients and safe to show. */
const CLIENT_CODES = new Set([
  'BAD_USER_INPUT', 'NOT_FOUND', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE', 'OPERATION_NOT_TRUSTED',
  'UNAUTHENTICATED', 'RATE_LIMITED',
  ...LIMIT_CODES,
  'IDEMPOTENCY_KEY_REUSED', 'CONFLICT', 'WRITE_CONTENTION', 'CATALOGUE_RELOADING', 'LEGACY_UNAVAILABLE', EXPENSIVE_READS_LIMITED,
]);

/** graphql-js's hint at the end of a message, as Apollo's own suggestion masking matches it. */
const SUGGESTION = / ?Did you mean(.+?)\?$/;

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
  if (original instanceof ValidationError || original instanceof NotFoundError || original instanceof ExpensiveReadRefused) return true;
  if (typeof code === 'string' && CLIENT_CODES.has(code)) return true;
  // A 4xx without a code: Apollo's "Unsupported persisted query version",
  // "provided sha does not match query". Their messages are for the client.
  const status = httpStatus(error);
  return (status !== undefined && status >= 400 && status < 500) || tooDeep(error);
}

export function makeFormatError(options: { mask: boolean; suggestions: boolean }) {
  const format = (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (isDatabaseUnavailable(original)) {
      return { message: DATABASE_UNAVAILABLE_MESSAGE, path: formatted.path, locations: formatted.locations, extensions: { code: 'SERVICE_UNAVAILABLE' } };
    }
    if (original instanceof ValidationError) {
      return { ...formatted, message: original.message, extensions: { code: 'BAD_USER_INPUT', field: original.field } };
    }
    if (original instanceof NotFoundError) {
      return { ...formatted, message: original.message, extensions: { code: 'NOT_FOUND' } };
    }
    if (original instanceof ExpensiveReadRefused) {
      const { concurrency, queue, maxWaitMs } = original.limits;
      return { ...formatted, message: original.message, extensions: { code: EXPENSIVE_READS_LIMITED, retryAfter: original.retryAfterSeconds, concurrency, queue, maxWaitMs } };
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
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    // The parser's "more than N tokens" becomes the token limit's own error.
    const tokens = tokenLimitError(error);
    const result = tokens ? format(tokens.toJSON(), tokens) : format(formatted, error);
    return options.suggestions ? result : { ...result, message: result.message.replace(SUGGESTION, '') };
  };
}

/** Logs every internal error with the id of the request it happened in. */
export function logInternalErrors<Context extends Pick<GraphQLContext, 'requestId'>>(log: (details: Record<string, unknown>, message: string) => void): ApolloServerPlugin<Context> {
  return {
    // Thrown outside any field (by a plugin): Apollo answers 500 and calls only this hook.
    async unexpectedErrorProcessingRequest({ requestContext, error }) {
      log({ reqId: requestContext.contextValue.requestId, operationName: requestContext.request.operationName, error: error.stack ?? error.message },
        'internal error in a GraphQL request');
    },
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          for (const error of errors) {
            if (isClientError(error, error.extensions?.code)) continue;
            const original = unwrapResolverError(error);
            // reqId: the same key as every other line the request logs.
            // An outage fails every request the same way: its message says it all.
            const unavailable = isDatabaseUnavailable(original);
            log({
              reqId: contextValue.requestId, operationName, path: error.path,
              error: original instanceof Error ? (unavailable ? original.message : original.stack ?? original.message) : String(original),
            }, unavailable ? 'database unavailable in a GraphQL operation' : 'internal error in a GraphQL operation');
          }
        },
      };
    },
  };
}
