// Structured JSON logs (Fastify's pino): every line a request writes carries
// its id as `reqId` (the x-request-id header), and each request ends with
// exactly one completion line (Fastify's "incoming request" line is dropped)
// that says what ran: route, status, duration, SQL statements, cache result
// and, for GraphQL, the operation.
import { type FastifyBaseLogger, LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { API_KEY_BODY_LENGTH, API_KEY_MARK, REDACTED, containsApiKey, redactApiKeys } from '../util/api-key-format.ts';
import { ANONYMOUS_OPERATION } from './graphql-operations.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's completion lines are written at debug level (probes and scrapes, polled every few seconds). */
    quietCompletion?: boolean;
  }
}

export type LogLevel = Config['logLevel'];

/** Where log lines go: stdout, or a stream a test reads. */
export interface LogDestination {
  write(line: string): void;
}

const VERBOSITY: Record<LogLevel, number> = { debug: 4, info: 3, warn: 2, error: 1, silent: 0 };

/** Query parameters whose values are secrets whatever their shape (compared case-insensitively, after percent-decoding the name). */
const SECRET_PARAMETERS = new Set(['api_key', 'apikey', 'api-key', 'x-api-key', 'key', 'token', 'access_token']);

/** Percent-decoding rounds a URL piece is read through (a key encoded twice is still a key in a log). */
const DECODE_ROUNDS = 3;

function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

function parameterName(raw: string): string {
  return decoded(raw).toLowerCase();
}

/** A piece of a URL (between / ? & =) with anything key-shaped in it redacted, also when percent-encoding hides it. */
function redactPiece(piece: string): string {
  if (containsApiKey(piece)) return redactApiKeys(piece);
  let text = piece;
  for (let round = 0; round < DECODE_ROUNDS && text.includes('%'); round++) {
    text = decoded(text);
    if (containsApiKey(text)) return REDACTED;
  }
  return piece;
}

/** Every %XX escape decoded (as the byte it stands for, a Latin-1 character, when the bytes are not UTF-8). */
function decodedOnce(piece: string): string {
  try {
    return decodeURIComponent(piece);
  } catch {
    return piece.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** What of a redacted piece no match may run through. */
const BARRIER = '\u0000';

/**
 * Where the URL's pieces (between / ? & = ;) hide a key split or garbled:
 * the index of the first piece of `cat_` followed by a key's length of
 * base64url characters once the escapes are decoded (as they stand, and
 * after each of DECODE_ROUNDS rounds: a round may eat a key's characters
 * that spell hex) and everything else (`%`, a new line, `&x=`, a parameter
 * name) is taken out; -1 when none does. `cat_%25` + 43 characters, a key
 * cut by `%0A`, a key in two parameters.
 */
function hiddenKeyPiece(pieces: string[]): number {
  const texts = pieces.map((piece, i) => (i % 2 === 1 ? '' : piece));
  let found = -1;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    const starts: number[] = [];
    let joined = '';
    for (const text of texts) {
      starts.push(joined.length);
      joined += text.includes(REDACTED) ? BARRIER : text.replace(/[^A-Za-z0-9_-]/g, '');
    }
    const at = joined.search(LOOSE_KEY);
    if (at >= 0) {
      const piece = starts.findLastIndex((start) => start <= at);
      found = found < 0 ? piece : Math.min(found, piece);
    }
    if (!texts.some((text) => text.includes('%'))) break;
    for (let i = 0; i < texts.length; i++) texts[i] = decodedOnce(texts[i]!);
  }
  return found;
}

/** The mark, perhaps with other characters between its letters (a `%0A` inside it). */
const LOOSE_MARK = new RegExp([...API_KEY_MARK].join('[^A-Za-z0-9_-]*'));

/** Whether the URL holds the mark as it stands or after a round of decoding: only then can a key hide in it (the common case costs a scan or two). */
function markInAnyRound(url: string): boolean {
  let text = url;
  for (let round = 0; ; round++) {
    if (LOOSE_MARK.test(text)) return true;
    if (round === DECODE_ROUNDS || !text.includes('%')) return false;
    text = decodedOnce(text);
  }
}

const LOOSE_KEY = new RegExp(`${API_KEY_MARK}[A-Za-z0-9_-]{${API_KEY_BODY_LENGTH}}`);

/**
 * The URL as logged: anything shaped like an API key (src/util/api-key-format.ts)
 * redacted wherever it is (path, parameter names and values, percent-encoded
 * or not), and the values of query parameters that carry secrets of any shape
 * (`?api_key=`, `key`, `token`, `access_token`, any case) replaced by
 * [REDACTED]. A key garbled or split so that no piece holds it whole (issue
 * 45: `?x=cat_%25…`, a `%0A` inside it, half in each of two parameters) is
 * redacted with everything after it. The API never reads keys from the URL,
 * but clients send them there anyway, and a log must not keep them.
 */
export function redactUrl(url: string): string {
  const logged = redactWholeKeys(url);
  if (!markInAnyRound(logged)) return logged;
  const pieces = logged.split(/([/?&=;])/);
  const hidden = hiddenKeyPiece(pieces);
  return hidden < 0 ? logged : `${pieces.slice(0, hidden).join('')}${REDACTED}`;
}

/** redactUrl for keys that stand whole in one piece of the URL (percent-encoded or not) and for secret parameters. */
function redactWholeKeys(url: string): string {
  const query = url.indexOf('?');
  let logged = url;
  if (query >= 0) {
    let named = false;
    const parts = url.slice(query + 1).split('&').map((part) => {
      const equals = part.indexOf('=');
      const name = equals < 0 ? part : part.slice(0, equals);
      if (!SECRET_PARAMETERS.has(parameterName(name))) return part;
      named = true;
      return `${name}=${REDACTED}`;
    });
    if (named) logged = `${url.slice(0, query)}?${parts.join('&')}`;
  }
  if (!logged.includes('%')) return redactApiKeys(logged);
  return logged.split(/([/?&=;])/).map((piece, i) => (i % 2 === 1 ? piece : redactPiece(piece))).join('');
}

/** Requests whose completion is logged at debug, not info, whatever their route (see completeQuietly). */
const quietRequests = new WeakSet<FastifyRequest>();

/**
 * Logs this request's completion at debug only: a refusal a client can
 * repeat as fast as it is answered (an SSE stream past a cap), so that
 * repeating it costs no log line each time; http_requests_total counts it.
 */
export function completeQuietly(request: FastifyRequest): void {
  quietRequests.add(request);
}

export class CompletionLog extends LogController {
  private readonly info: boolean;
  private readonly debug: boolean;
  constructor(level: LogLevel) {
    super();
    this.info = VERBOSITY[level] >= VERBOSITY.info;
    this.debug = VERBOSITY[level] >= VERBOSITY.debug;
  }

  override incomingRequest(): void {
    // One line per request, written when it completes.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const quiet = request.routeOptions.config?.quietCompletion === true || quietRequests.has(request);
    if (!error && !(quiet ? this.debug : this.info)) return;
    const operation = request.graphqlOperation;
    const fields = {
      method: request.method,
      url: redactUrl(request.url),
      route: request.routeOptions.url,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      sqlStatements: request.sqlStatements?.count,
      cache: reply.getHeader('x-cache'),
      // With traces on (request-traces.ts): the trace this request's spans belong to.
      traceId: request.trace?.traceId,
      ...(operation ? {
        operation: operation.resolved ? operation.name ?? ANONYMOUS_OPERATION : undefined,
        operationType: operation.type,
        graphqlErrors: operation.errors,
      } : {}),
      ...(error ? { err: error } : {}),
    };
    if (error) request.log.error(fields, 'request errored');
    else if (quiet) request.log.debug(fields, 'request completed');
    else request.log.info(fields, 'request completed');
  }
}

type Bindings = Record<string, unknown>;
type LineMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * A request's logger, made when the request first writes a line at an
 * enabled level. Fastify makes a pino child for every request (binding its
 * reqId), and most requests write nothing at the levels run in production:
 * making it costs about 7% of a REST cache hit's throughput (the hot-set
 * bench at LOG_LEVEL=silent against warn).
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;
  private readonly parent: FastifyBaseLogger;
  private readonly bindings: Bindings;
  private readonly enabled: ReadonlySet<string>;
  constructor(parent: FastifyBaseLogger, bindings: Bindings, enabled: ReadonlySet<string>) {
    this.parent = parent;
    this.bindings = bindings;
    this.enabled = enabled;
  }

  private get logger(): FastifyBaseLogger {
    return this.made ??= this.parent.child(this.bindings);
  }

  private line(method: LineMethod, args: unknown[]): void {
    if (!this.enabled.has(method)) return;
    (this.logger[method] as (...args: unknown[]) => void)(...args);
  }

  get level(): string { return this.made?.level ?? this.parent.level; }
  trace(...args: unknown[]): void { this.line('trace', args); }
  debug(...args: unknown[]): void { this.line('debug', args); }
  info(...args: unknown[]): void { this.line('info', args); }
  warn(...args: unknown[]): void { this.line('warn', args); }
  error(...args: unknown[]): void { this.line('error', args); }
  fatal(...args: unknown[]): void { this.line('fatal', args); }
  silent(): void {}
  child(bindings: Bindings, options?: object): FastifyBaseLogger { return this.logger.child(bindings, options); }
}


/**
 * Fastify's childLoggerFactory for a logger at `level` (which the API never
 * changes while it runs): a RequestLogger, unless the route logs at a level
 * of its own (then pino's child at once).
 */
export function requestLoggerFactory(level: Exclude<LogLevel, 'silent'>) {
  // The levels as verbose as LOG_LEVEL or less; fatal always (trace never: debug is the most verbose setting).
  const enabled = new Set<string>(['fatal', ...Object.entries(VERBOSITY).filter(([name, n]) => name !== 'silent' && n <= VERBOSITY[level]).map(([name]) => name)]);
  return (logger: FastifyBaseLogger, bindings: Bindings, options: { level?: string }): FastifyBaseLogger => {
    if (options.level) return logger.child(bindings, options);
    return new RequestLogger(logger, bindings, enabled) as unknown as FastifyBaseLogger;
  };
}

/** Fastify's logger options for this configuration. */
export function loggerOptions(level: LogLevel, destination?: LogDestination): Pick<FastifyServerOptions, 'logger' | 'logController' | 'childLoggerFactory'> {
  if (level === 'silent') return { logger: false };
  return {
    logger: {
      level,
      ...(destination ? { stream: destination } : {}),
      // Fastify's own request serializer (any line that logs `req`), with the URL redacted too.
      serializers: {
        req: (request: FastifyRequest) => ({ method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort }),
      },
      // And every line as written, whoever wrote it and whatever it holds (a
      // header echoed in an error, a message quoting input): nothing shaped
      // like an API key leaves the process in a log.
      hooks: { streamWrite: redactApiKeys },
    },
    logController: new CompletionLog(level),
    childLoggerFactory: requestLoggerFactory(level),
  };
}
