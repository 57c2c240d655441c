// The one shape of every refusal by a GraphQL abuse limit: HTTP 400, a code
// naming the limit, and a message saying by how much the request went over.
import { GraphQLError } from 'graphql';

export const LIMIT_CODES = [
  'QUERY_TOO_DEEP', 'QUERY_TOO_MANY_ALIASES', 'QUERY_TOO_MANY_TOKENS', 'QUERY_TOO_MANY_DIRECTIVES', 'QUERY_TOO_COSTLY',
] as const;

export type LimitCode = (typeof LIMIT_CODES)[number];

/** e.g. `limitExceeded('QUERY_TOO_DEEP', 'query depth', 9, 6)`: "query depth 9 exceeds the limit of 6 (by 3)". */
export function limitExceeded(code: LimitCode, what: string, actual: number, limit: number): GraphQLError {
  return new GraphQLError(`${what} ${actual} exceeds the limit of ${limit} (by ${actual - limit})`, {
    extensions: { code, limit, actual, http: { status: 400 } },
  });
}
