// Sending requests and checking what comes back. A Call is one request with
// its name tag, the statuses that are answers (not failures) and the checks
// its headers and body must pass; send() runs one call, or several at once as
// a browser would (http.batch), checks each response and returns them.
import { check } from 'k6';
import http, { type Params, type RefinedResponse, type ResponseType } from 'k6/http';
import { Trend } from 'k6/metrics';

/** SQL statements per request, from the server's x-sql-statements header (npm run bench reports it). */
const sqlStatements = new Trend('sql_statements');

/** Named checks of a parsed JSON body; a checker that throws (wrong shape) counts as failed. */
export type BodyChecks = Record<string, (body: unknown) => boolean>;

/** Named checks of a response's headers (k6's canonical names: `Etag`, `Content-Type`). */
export type HeaderChecks = Record<string, (headers: Record<string, string>) => boolean>;

export type Response = RefinedResponse<ResponseType | undefined>;

export interface Call {
  /** The k6 name tag: the route or operation, never the URL (one time series per id otherwise). */
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  body?: string;
  /** Request headers besides the JSON content type of a body (Authorization, If-Match). */
  headers?: Record<string, string>;
  /** Statuses that are correct answers; anything else counts in http_req_failed. */
  statuses: number[];
  /** Checks for the parsed body, by status (e.g. 200: the product; 404: the error message). */
  bodyChecks(status: number): BodyChecks;
  /** Checks for the headers, by status; run on every response (cheap), not only validated ones. */
  headerChecks?(status: number): HeaderChecks;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function params(call: Call, validate: boolean): Params {
  return {
    tags: { name: call.name },
    headers: { ...(call.body === undefined ? {} : JSON_HEADERS), ...call.headers },
    responseCallback: http.expectedStatuses(...call.statuses),
    // Bodies that will not be validated are not even copied into the script.
    responseType: validate ? 'text' : 'none',
  };
}

/** Prefixes each check with the call's name; a checker that throws fails instead of ending the iteration. */
function named<T>(call: Call, checks: Record<string, (value: T) => boolean>): Record<string, (value: T) => boolean> {
  return Object.fromEntries(Object.entries(checks).map(([name, checker]) => [`${call.name}: ${name}`, (value: T) => {
    try {
      return checker(value);
    } catch {
      return false;
    }
  }]));
}

function verify(call: Call, response: Response, validate: boolean): void {
  const statements = Number(response.headers['X-Sql-Statements']);
  if (Number.isFinite(statements)) sqlStatements.add(statements);
  const answered = check(response, {
    [`${call.name}: status ${call.statuses.join(' or ')}`]: (r) => call.statuses.includes(r.status),
    [`${call.name}: JSON`]: (r) => String(r.headers['Content-Type'] ?? '').startsWith('application/json'),
  });
  if (answered && call.headerChecks) check(response.headers, named(call, call.headerChecks(response.status)));
  if (!validate || !answered) return;
  let body: unknown;
  try {
    // Parsed once here: k6 re-parses on every response.json() call.
    body = JSON.parse(response.body as string);
  } catch {
    check(null, { [`${call.name}: body is JSON`]: () => false });
    return;
  }
  check(body, named(call, call.bodyChecks(response.status)));
}

/** Sends the calls (at once when there are several), checks every response, and returns them in the calls' order. */
export function send(calls: Call[], validate: boolean): Response[] {
  const responses = calls.length === 1
    ? [http.request(calls[0]!.method, calls[0]!.url, calls[0]!.body ?? null, params(calls[0]!, validate))]
    : http.batch(calls.map((call) => ({ method: call.method, url: call.url, body: call.body ?? null, params: params(call, validate) })));
  calls.forEach((call, i) => verify(call, responses[i]!, validate));
  return responses;
}
