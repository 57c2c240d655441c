// Structured JSON logs (Fastify's pino): every line a request writes carries
// its id as `reqId` (the x-request-id header), and each request ends with
// exactly one completion line (Fastify's "incoming request" line is dropped)
// that says what ran: route, status, duration, SQL statements, cache result
// and, for GraphQL, the operation.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
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
      url: request.url,
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

/** Fastify's logger options for this configuration. */
export function loggerOptions(level: LogLevel, destination?: LogDestination): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (level === 'silent') return { logger: false };
  return {
    logger: { level, ...(destination ? { stream: destination } : {}) },
    logController: new CompletionLog(level),
  };
}
