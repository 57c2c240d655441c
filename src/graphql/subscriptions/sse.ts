// GraphQL over Server-Sent Events at /graphql/stream, the graphql-sse
// protocol's "distinct connections" mode (graphql-sse's handler): each
// subscription is one GET or POST with `Accept: text/event-stream`, answered
// with a stream of `next` events. Refusals are HTTP statuses before the
// stream starts, with a GraphQL error body: 400 (the document, a limit, the
// ids), 401 (the key), 403 (the Origin), 406 (not asking for a stream), 413
// (a body larger than a graphql-ws message may be: MAX_SUBSCRIBE_BYTES), 429
// (the budget, or the client's caps: capacity.ts), 503 (restarting, a key
// that cannot be checked now, or the process's caps).
//
// A stream whose API key is revoked while it is open gets a last `next` event
// with an UNAUTHENTICATED error saying so, then `complete` (key-watch.ts).
//
// On a restart the stream just ends (no `complete` event): EventSource and
// graphql-sse's client reconnect, and get each product's current state again.
// A stream whose socket stays full (the reader is not reading) is cut once
// its pending events have waited LIVE_SLOW_CONSUMER_MS.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/fastify';
import { type AccessControl, type Caller, isIdentifyFailure, refusal as identifyRefusal } from '../../auth/access.ts';
import type { LiveHub, LiveOperation } from './hub.ts';
import type { KeyWatch } from './key-watch.ts';
import { capAnswer, type ConnectionSlot, isCapRefusal, type LiveCapacity } from './capacity.ts';
import { type LiveOperations, MAX_SUBSCRIBE_BYTES } from './operation.ts';
import { completeQuietly } from '../../observability/logging.ts';

export const SSE_PATH = '/graphql/stream';
const EVENT_STREAM = 'text/event-stream';

export interface SseTransportOptions {
  schema: GraphQLSchema;
  hub: LiveHub;
  operations: LiveOperations;
  access: AccessControl;
  /** Ends streams whose key is revoked while they are open. */
  keyWatch: KeyWatch;
  /** The caps on connections and subscriptions, shared with WebSockets. */
  capacity: LiveCapacity;
  /** Whether a browser's Origin may subscribe (CORS_ORIGINS); true without an Origin header. */
  originAllowed(headers: IncomingHttpHeaders): boolean;
}

type StreamContext = {
  live: LiveOperation;
  caller: Caller;
  /** The request's headers (its key, checked again while the stream is open). */
  headers: IncomingHttpHeaders;
  /** Gives back its place under the subscription caps. */
  release: () => void;
  response: ServerResponse;
  /** Resolves once everything written to the response has been handed to the kernel. */
  written: () => Promise<void>;
};

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

function errorBody(message: string, code: string, extensions: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extensions } }] });
}

/**
 * Counts a response's writes not yet handed to the kernel (their callbacks
 * not yet called); returns a wait for there being none (or the response
 * closed).
 */
function trackWrites(response: ServerResponse): () => Promise<void> {
  let outstanding = 0;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const write = response.write;
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]): boolean {
    outstanding++;
    const at = rest.findIndex((arg) => typeof arg === 'function');
    const callback = at >= 0 ? (rest[at] as (error?: Error | null) => void) : undefined;
    const done = (error?: Error | null) => {
      if (--outstanding === 0) wake();
      callback?.(error);
    };
    const args = at >= 0 ? rest.map((arg, i) => (i === at ? done : arg)) : [...rest, done];
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...args);
  } as ServerResponse['write'];
  response.once('close', wake);
  return () => (outstanding === 0 || response.destroyed ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)));
}

/** Drops the request's parsed body and parameters (an undeclared variable of 900 KB was kept per stream). */
function forget(request: FastifyRequest, params: Partial<Record<'query' | 'variables' | 'extensions' | 'operationName', unknown>>): void {
  request.body = undefined;
  delete params.query;
  delete params.variables;
  delete params.extensions;
}

/**
 * The route options of /graphql/stream: a body at most MAX_SUBSCRIBE_BYTES,
 * past it a 413 in GraphQL's error shape naming the bound.
 */
export const SSE_ROUTE_OPTIONS = {
  bodyLimit: MAX_SUBSCRIBE_BYTES,
  errorHandler: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
    return reply.code(413).headers(JSON_TYPE).send(errorBody(`a subscription request is at most ${MAX_SUBSCRIBE_BYTES} bytes (as a graphql-ws message is)`, 'BAD_REQUEST'));
  },
};

export class SseTransport {
  private readonly options: SseTransportOptions;
  private readonly streams = new Set<ServerResponse>();
  private readonly handler: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Who sent each request, for onSubscribe (identified before the stream starts). */
  private readonly callers = new WeakMap<FastifyRequest, Caller>();
  private closing = false;

  constructor(options: SseTransportOptions) {
    this.options = options;
    const callers = this.callers;
    this.handler = createHandler<StreamContext>({
      schema: options.schema,
      // Validated (with the limits) in onSubscribe.
      validate: () => [],
      onSubscribe: async (req, params) => {
        const request = req.raw;
        const caller = callers.get(request)!;
        let release = () => {};
        const prepared = await options.operations.prepare(params, caller, (live) => {
          const granted = options.capacity.subscribe(caller, live.ids.length);
          if (isCapRefusal(granted)) return capAnswer(granted);
          release = granted;
          return undefined;
        });
        // What the client sent is not kept for the stream's life (graphql-sse's
        // handler and Fastify's request hold both until it ends): only the checked operation is.
        forget(request, params);
        if ('refusal' in prepared) {
          release();
          const { status, errors, headers } = prepared.refusal;
          return [JSON.stringify({ errors }), { status, statusText: '', headers: { ...JSON_TYPE, ...Object.fromEntries(headers) } }];
        }
        const reply = req.context.reply;
        for (const [name, value] of prepared.headers) void reply.header(name, value);
        const context: StreamContext = { live: prepared.operation, caller, headers: request.headers, release, response: reply.raw, written: trackWrites(reply.raw) };
        return { schema: options.schema, document: prepared.operation.document, operationName: prepared.operation.operationName, contextValue: context };
      },
      subscribe: (args) => {
        const context = args.contextValue as StreamContext;
        const subscription = options.hub.subscribe(context.live);
        subscription.onEnd = context.release;
        subscription.onStalled = () => context.response.destroy();
        const unwatch = options.keyWatch.hold(context.caller, context.headers, (message) => {
          subscription.finish({ data: null, errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] });
        });
        context.response.once('close', unwatch);
        // Its results' errors are formatted already (plain objects), which is all an event's JSON needs.
        return subscription as unknown as AsyncGenerator<ExecutionResult>;
      },
      // The next event is taken only once the last one was handed to the kernel:
      // a slow reader's events wait (and coalesce) in the hub. graphql-sse
      // queues what onNext lets through without bound (its writer waits for
      // each write, so a full socket's `drain` never comes while events pile up
      // in that queue): at most one event slips past this wait into it.
      onNext: async (context) => {
        await context.written();
      },
    });
  }

  /** Open streams. */
  get size(): number {
    return this.streams.size;
  }

  /** The route handler of GET and POST /graphql/stream. */
  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (this.closing) {
      return void reply.code(503).header('retry-after', '2').headers(JSON_TYPE).send(errorBody('the server is shutting down, try again shortly', 'SERVICE_UNAVAILABLE'));
    }
    if (!(request.headers.accept ?? '').includes(EVENT_STREAM)) {
      return void reply.code(406).headers(JSON_TYPE).send(errorBody(`${SSE_PATH} streams subscriptions as Server-Sent Events: send Accept: ${EVENT_STREAM} (queries and mutations go to /graphql)`, 'BAD_REQUEST'));
    }
    if (!this.options.originAllowed(request.headers)) {
      return void reply.code(403).headers(JSON_TYPE).send(errorBody(`origin ${request.headers.origin} is not allowed (CORS_ORIGINS)`, 'FORBIDDEN'));
    }
    let caller: Caller;
    try {
      caller = await this.options.access.identify(request.headers, request.ip);
    } catch (error) {
      if (!isIdentifyFailure(error)) throw error;
      const { status, code, headers } = identifyRefusal(error);
      return void reply.code(status).headers({ ...headers, ...JSON_TYPE }).send(errorBody(error.message, code));
    }
    const slot = this.options.capacity.connect(request.ip, false);
    const capped = isCapRefusal(slot) ? slot : slot.identified(caller);
    if (capped) {
      completeQuietly(request);
      const { status, errors, headers } = capAnswer(capped);
      return void reply.code(status).headers({ ...Object.fromEntries(headers), ...JSON_TYPE }).send(JSON.stringify({ errors }));
    }
    this.callers.set(request, caller);
    // graphql-sse's distinct-connections mode answers `Accept: text/event-stream` exactly.
    request.raw.headers.accept = EVENT_STREAM;
    reply.hijack();
    const response = reply.raw;
    this.streams.add(response);
    const ended = () => {
      this.streams.delete(response);
      (slot as ConnectionSlot).release();
    };
    response.once('close', ended);
    // The client may have gone while its key was checked: then 'close' has been emitted already.
    if (response.destroyed) ended();
    try {
      await this.handler(request, reply);
    } catch (error) {
      // Headers sent: the stream is cut (clients reconnect); else a plain 500.
      request.log.error({ err: error }, 'internal error in an SSE subscription');
      if (response.headersSent) response.destroy();
      else response.writeHead(500, JSON_TYPE).end(errorBody('Internal server error', 'INTERNAL_SERVER_ERROR'));
    }
  }

  /** Ends every stream (no `complete` event: clients reconnect) and refuses new ones with 503. */
  async close(): Promise<void> {
    this.closing = true;
    const ended = [...this.streams].map((response) => new Promise<void>((resolve) => {
      if (response.destroyed) return resolve();
      response.once('close', () => resolve());
      // Not kept alive: the client's next attempt goes to a fresh connection (another instance).
      response.end();
      response.socket?.end();
    }));
    await Promise.all(ended);
  }
}
