// The HTTP status of every GraphQL response, one rule for both executors and
// every error source (GraphQL-over-HTTP, https://graphql.github.io/graphql-over-http/draft/):
//
// - The operation ran (the response has `data`, null or partial): 200, under
//   either media type. A field's BAD_USER_INPUT, NOT_FOUND or CONFLICT is in
//   `errors` beside the data; clients read `extensions.code`.
// - Postgres unavailable, a write given up for contention or refused during a
//   reload (CATALOGUE_RELOADING), or (sidecar mode)
//   the legacy service unable to take a write (LEGACY_UNAVAILABLE): 503 with
//   Retry-After, and no `data` (nothing usable was read, nothing was written):
//   the status a load balancer or a retry policy acts on. An expensive read
//   the process's limit refused (EXPENSIVE_READS_LIMITED): 429 with
//   Retry-After, no `data` either (the client is to slow down and retry).
// - The operation never ran (parse, validation, variable coercion, the limits):
//   400 when the client accepts application/graphql-response+json, whose status
//   codes carry that meaning; 200 under application/json, which the spec keeps
//   for well-formed requests whatever their GraphQL errors. A request that is
//   not well-formed (BAD_REQUEST, e.g. a `query` that is not a string) is a
//   400 under both, as is a body that is not JSON. Other statuses
//   (401, 405, 406, 413, 415, 429) are HTTP's own and stay as they are.
import { type ApolloServerPlugin, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import Negotiator from 'negotiator';
import { CONTENTION_RETRY_AFTER_SECONDS } from '../db/writes/transaction.ts';
import { RETRY_AFTER_SECONDS } from '../db/failures/unavailable.ts';
import type { GraphQLContext } from './context.ts';
import { EXPENSIVE_READS_LIMITED } from './errors.ts';
import { ran, type StageTrace } from './stages.ts';

/** The media types Apollo Server chooses among for a single result, in its order of preference. */
export const JSON_MEDIA_TYPE = 'application/json; charset=utf-8';
export const GRAPHQL_RESPONSE_MEDIA_TYPE = 'application/graphql-response+json; charset=utf-8';
const MEDIA_TYPES = [JSON_MEDIA_TYPE, GRAPHQL_RESPONSE_MEDIA_TYPE, 'application/json; callbackSpec=1.0; charset=utf-8'];

/** The media type Apollo answers a single result in for this Accept header (it negotiates the same way); undefined when none fits. */
export function responseMediaType(accept: string | undefined): string | undefined {
  if (!accept) return JSON_MEDIA_TYPE;
  return new Negotiator({ headers: { accept } }).mediaType(MEDIA_TYPES);
}

/**
 * For the answers given by the stages' runner (fast-path.ts):
 * the media type Apollo would answer in, or undefined when only Apollo should
 * decide (nothing fits: its 406; or the JSONP-style callback type).
 */
export function earlyMediaType(accept: string | undefined): string | undefined {
  const type = responseMediaType(accept);
  return type !== undefined && EARLY_MEDIA_TYPES.includes(type) ? type : undefined;
}

/** The media types an answer given before Apollo may have. */
export const EARLY_MEDIA_TYPES: readonly string[] = [JSON_MEDIA_TYPE, GRAPHQL_RESPONSE_MEDIA_TYPE];

/** Whether Apollo answers this request as application/graphql-response+json. */
export function answersGraphqlResponseJson(http: HTTPGraphQLRequest | undefined): boolean {
  return responseMediaType(http?.headers.get('accept')) === GRAPHQL_RESPONSE_MEDIA_TYPE;
}

type Errors = readonly { extensions?: Record<string, unknown> }[] | undefined;

/** The first `retryAfter` an error of the response carries. */
function hinted(errors: Errors): number | undefined {
  return errors?.map((error) => error.extensions?.retryAfter).find((value): value is number => typeof value === 'number');
}

/** The status and seconds to wait before retrying, for the errors that make a whole response a 503 (or a 429). */
function retryAfter(codes: Set<unknown>, errors: Errors): { status: number; seconds: number } | undefined {
  if (codes.has('SERVICE_UNAVAILABLE')) return { status: 503, seconds: RETRY_AFTER_SECONDS };
  // Sidecar mode: the legacy service could not take a write; it says how long (or the client's default).
  // A reload (data:load) says how long too.
  if (codes.has('LEGACY_UNAVAILABLE') || codes.has('CATALOGUE_RELOADING')) return { status: 503, seconds: hinted(errors) ?? RETRY_AFTER_SECONDS };
  if (codes.has('WRITE_CONTENTION')) return { status: 503, seconds: CONTENTION_RETRY_AFTER_SECONDS };
  if (codes.has(EXPENSIVE_READS_LIMITED)) return { status: 429, seconds: hinted(errors) ?? 1 };
  return undefined;
}

/** The status of an answer, and when it is a 503 or 429, the seconds to wait (its data then dropped). */
export interface AnswerStatus { status: number; retryAfterSeconds?: number }

/** An answer with data and no errors. */
const OK: AnswerStatus = Object.freeze({ status: 200 });

/**
 * The httpStatus stage: the status of an answer holding `result`, given the
 * status it has so far and whether it goes out as
 * application/graphql-response+json (`strict`, asked only when needed).
 */
export function answerStatus(trace: StageTrace | undefined, result: { errors?: Errors; data?: unknown }, status: number | undefined, strict: () => boolean): AnswerStatus {
  ran(trace, 'httpStatus');
  if (!result.errors?.length && result.data !== undefined) return OK;
  const codes = new Set(result.errors?.map((error) => error.extensions?.code));
  const retry = retryAfter(codes, result.errors);
  if (retry !== undefined) return { status: retry.status, retryAfterSeconds: retry.seconds };
  if (result.data !== undefined) return { status: 200 };
  let answered = status ?? 200;
  // A malformed request (BAD_REQUEST: `query` not a string, a bad extension) is not a GraphQL request error: it stays 400.
  if (answered === 400 && !codes.has('BAD_REQUEST') && !strict()) answered = 200;
  // No data under application/graphql-response+json is never a 2xx (Apollo answers an unknown persisted query 200).
  if ((status ?? 200) < 300 && strict()) answered = 400;
  return { status: answered };
}

/** Apollo's adapter of the httpStatus stage. */
export function httpStatusPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response, contextValue }) {
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          const { status, retryAfterSeconds } = answerStatus(contextValue.stages, result, response.http.status, () => answersGraphqlResponseJson(request.http));
          if (status !== (response.http.status ?? 200) || retryAfterSeconds !== undefined || result.data !== undefined) response.http.status = status;
          if (retryAfterSeconds === undefined) return;
          (response.http.headers ??= new HeaderMap()).set('retry-after', String(retryAfterSeconds));
          if (result.data !== undefined) response.body = { kind: 'single', singleResult: { errors: result.errors } };
        },
      };
    },
  };
}
