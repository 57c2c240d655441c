// Structured JSON logs (Fastify's pino): every line a request writes carries
// its id as `reqId` (the x-request-id header), and each request ends with
// exactly one completion line (Fastify's "incoming request" line is dropped)
// that says what ran: route, status, duration, SQL statements, cache result
// and, for GraphQL, the operation.
import { type FastifyBaseLogger, LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { REDACTED, containsApiKey, redactApiKeys } from '../util/api-key-format.ts';
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

/**
 * The URL as logged: anything shaped like an API key (src/util/api-key-format.ts)
 * redacted wherever it is (path, parameter names and values, percent-encoded
 * or not), and the values of query parameters that carry secrets of any shape
 * (`?api_key=`, `key`, `token`, `access_token`, any case) replaced by
 * [REDACTED]. The API never reads keys from the URL, but clients send them
 * there anyway, and a log must not keep them.
 */
export function redactUrl(url: string): string {
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
    const quiet = request.routeOptions.config?.quietCompletion === true;
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
