// graphql-ws (the graphql-transport-ws protocol: what Apollo Client's
// GraphQLWsLink and GraphiQL speak) on the WebSocket upgrade of /graphql.
// The protocol is graphql-ws's own server (makeServer); the sockets are ws's,
// handled here: who is calling (the upgrade's headers, or an API key in
// connection_init's payload, as browsers cannot set headers), the limits,
// keep-alive pings, slow consumers, and closing for a restart.
//
// Close codes: 4400 a malformed message (graphql-ws), 4401 a key that is not
// valid or none where reads need one, or a key revoked while the connection
// was open (key-watch.ts), 4403 an Origin CORS_ORIGINS does not
// allow, 4408 no connection_init in time (graphql-ws), 4429 the caller's
// rate-limit budget spent (an upgrade costs its address 1, before
// connection_init), or the client's own cap on connections reached
// (capacity.ts), 1012 the server restarting (clients reconnect), 1013 a
// connection too slow to take its events, a key that cannot be checked right
// now, or the process's caps reached (try again later). A refused subscription (bad document,
// a limit, too many on the connection) gets an `error` message for its id and
// leaves the connection and its other subscriptions alone.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CloseCode, type Context, GRAPHQL_TRANSPORT_WS_PROTOCOL, handleProtocols, makeServer } from 'graphql-ws';
import { type ExecutionResult, GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { type WebSocket, WebSocketServer } from 'ws';
import { type AccessControl, AddressRateLimited, type Caller, ConflictingKeys, isIdentifyFailure, rateLimitMessage, Unauthenticated } from '../../auth/access.ts';
import type { LiveHub, LiveOperation, LiveSubscription } from './hub.ts';
import { type KeyWatch, revokedMessage } from './key-watch.ts';
import { AddressRate } from '../../http/connections.ts';
import { capAnswer, type CapRefusal, type ConnectionSlot, isCapRefusal, type LiveCapacity } from './capacity.ts';
import { type LiveOperations, MAX_SUBSCRIBE_BYTES } from './operation.ts';

/** A connection told to close (restart, too slow) that has not finished its close handshake within this long is cut. */
const CLOSE_GRACE_MS = 1_000;
/** What a connection costs its caller's rate-limit budget when it starts (as one REST request). */
const CONNECTION_COST = 1;
/**
 * Each connection is pinged once a period, a slice of them every PING_TICK_MS:
 * a ping is a write to its socket (about 65 µs on this project's 2 shared
 * cores), so pinging 20,000 in one turn of the event loop held every event
 * back for more than a second, every period (bench:live's p99).
 */
const PING_TICK_MS = 50;
/** WebSocket close reasons are at most 123 bytes. */
const reason = (text: string) => (Buffer.byteLength(text) <= 123 ? text : `${Buffer.from(text).subarray(0, 120).toString()}...`);

export interface WsTransportOptions {
  schema: GraphQLSchema;
  hub: LiveHub;
  operations: LiveOperations;
  access: AccessControl;
  /** The client's address, as request.ip gives it for HTTP requests (TRUST_PROXY). */
  clientAddress(request: IncomingMessage): string;
  /** Whether a browser's Origin may connect (CORS_ORIGINS); true without an Origin header. */
  originAllowed(headers: IncomingHttpHeaders): boolean;
  maxSubscriptionsPerConnection: number;
  /** Ends connections whose key is revoked while they are open. */
  keyWatch: KeyWatch;
  /** The caps on connections and subscriptions, shared with SSE. */
  capacity: LiveCapacity;
  pingMs: number;
  initTimeoutMs: number;
  warn(message: string, error?: unknown): void;
}

/** What graphql-ws keeps per connection (its `extra`). */
interface Connection {
  socket: WebSocket;
  request: IncomingMessage;
  /** Its place under the connection caps, from the upgrade until it closes. */
  slot: ConnectionSlot;
  caller: Caller | undefined;
  /** The headers its key came in (the upgrade's, or connection_init's payload): checked again for each subscription. */
  credentials: IncomingHttpHeaders;
  /** Stops watching its key (key-watch.ts). */
  unwatch: () => void;
  /** Answered a ping since the last one (or sent anything). */
  alive: boolean;
  /** Refused subscriptions' errors, by subscription id, for the `error` message (onError). */
  refusals: Map<string, readonly GraphQLFormattedError[]>;
}

/** What onSubscribe hands graphql-ws's execution (ExecutionArgs.contextValue): the checked operation. */
interface Checked {
  live: LiveOperation;
  connection: Connection;
  /** Gives back its place under the subscription caps. */
  release: () => void;
}

export class WsTransport {
  private readonly options: WsTransportOptions;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly pinger: NodeJS.Timeout;
  /** Where the ping round has got to (connections added meanwhile are reached in this round). */
  private pingRound: Iterator<Connection> | undefined;
  private pingRoundStarted = 0;
  private closing = false;
  /** Upgrades past a cap told why in a close code and reason (the handshake's work), at most once a second per address. */
  private readonly explained = new AddressRate(1, 1);

  constructor(options: WsTransportOptions) {
    this.options = options;
    this.wss = new WebSocketServer({
      noServer: true,
      // The largest message a client may send (ws closes with 1009 past it).
      maxPayload: MAX_SUBSCRIBE_BYTES,
      // No compression: every event would cost CPU per subscriber, and deflate contexts memory per connection.
      perMessageDeflate: false,
      handleProtocols: (protocols) => handleProtocols(protocols),
      clientTracking: false,
    });
    const server = this.protocolServer();
    this.wss.on('connection', (socket: WebSocket, request: IncomingMessage, slot: ConnectionSlot) => this.opened(server, socket, request, slot));
    // One timer for every connection: each is pinged once a period, and closed if it did not answer the last.
    this.pinger = setInterval(() => this.ping(), Math.min(PING_TICK_MS, options.pingMs));
    this.pinger.unref();
  }

  /** Open WebSocket connections. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * Takes an upgrade request for /graphql (the caller has checked the path).
   * It holds a place under the connection caps from now on, and costs its
   * address's budget what a request costs: an upgrade that never sends
   * connection_init is not free. Past a cap or the budget it is accepted and
   * closed at once with a code and a reason naming the limit (what browsers
   * can read, unlike an HTTP status answering the upgrade).
   */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const address = this.options.clientAddress(request);
    const slot = this.options.capacity.connect(address, true);
    if (isCapRefusal(slot)) return this.refuseCapped(request, socket, head, slot, address);
    // Given back when the socket closes, whatever happens to it: ws drops a
    // malformed upgrade, or a socket gone meanwhile, without calling back.
    socket.once('close', () => slot.release());
    void this.options.access.spend({ key: undefined, address }, CONNECTION_COST).then((decision) => {
      if (!decision || decision.allowed) return this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit('connection', ws, request, slot));
      slot.release();
      this.refuseUpgrade(request, socket, head, CloseCode.TooManyInitialisationRequests, rateLimitMessage({ key: undefined, address }, decision, CONNECTION_COST));
    }).catch((error: unknown) => {
      slot.release();
      socket.destroy();
      this.options.warn('graphql-ws: internal error taking an upgrade', error);
    });
  }

  /**
   * An upgrade past a cap: closed with a code and a reason browsers can read
   * (after the handshake), at most once a second per address; its address's
   * other refusals meanwhile are closed before any handshake, unanswered, as
   * src/http/connections.ts does past its caps: a client reconnecting as
   * fast as it is refused costs a close, not a WebSocket each time.
   */
  private refuseCapped(request: IncomingMessage, socket: Duplex, head: Buffer, refusal: CapRefusal, address: string): void {
    if (this.explained.take(address)) this.refuseUpgrade(request, socket, head, capCloseCode(refusal), refusal.message);
    else socket.destroy();
  }

  private refuseUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, code: number, why: string): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', () => ws.terminate());
      ws.close(code, reason(why));
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    });
  }

  /**
   * Closes every connection with 1012 (service restart: clients reconnect,
   * to another instance or this one restarted, and get each product's current
   * state again); one that has not finished closing after a grace period is cut.
   */
  async close(code = 1012, why = 'server restarting'): Promise<void> {
    this.closing = true;
    clearInterval(this.pinger);
    this.explained.stop();
    const closed = [...this.connections].map((connection) => this.end(connection, code, why));
    await Promise.all(closed);
  }

  private end(connection: Connection, code: number, why: string): Promise<void> {
    const { socket } = connection;
    if (socket.readyState === socket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(code, reason(why));
    });
  }

  /** The next slice of the round (as many as a period's ticks share): each connection is visited once a period. */
  private ping(): void {
    const slice = Math.ceil(this.connections.size / Math.max(1, Math.floor(this.options.pingMs / PING_TICK_MS)));
    for (let i = 0; i < slice; i++) {
      let next = this.pingRound?.next();
      if (!next || next.done) {
        // A round starts once a period at most: a connection has a whole period to answer.
        if (performance.now() - this.pingRoundStarted < this.options.pingMs) return;
        this.pingRoundStarted = performance.now();
        this.pingRound = this.connections.values();
        next = this.pingRound.next();
        if (next.done) return;
      }
      const connection = next.value;
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  private opened(server: ReturnType<WsTransport['protocolServer']>, socket: WebSocket, request: IncomingMessage, slot: ConnectionSlot): void {
    const connection: Connection = { socket, request, slot, caller: undefined, credentials: {}, unwatch: () => {}, alive: true, refusals: new Map() };
    this.connections.add(connection);
    socket.on('pong', () => { connection.alive = true; });
    // A socket error (a client that reset, a frame over the limit) closes it; ws has already sent the close frame if it could.
    socket.on('error', () => socket.terminate());
    if (!this.options.originAllowed(request.headers)) {
      socket.close(CloseCode.Forbidden, reason(`origin ${request.headers.origin} is not allowed (CORS_ORIGINS)`));
    }
    const closed = server.opened({
      protocol: socket.protocol,
      send: (data) => new Promise((resolve) => {
        if (socket.readyState !== socket.OPEN) return resolve();
        // Resolves once the frame is handed to the kernel: the next event is taken then (a slow reader's wait here is what coalesces them).
        socket.send(data, () => resolve());
      }),
      close: (code, why) => socket.close(code, reason(why ?? '')),
      onMessage: (handle) => socket.on('message', (data: Buffer, isBinary: boolean) => {
        connection.alive = true;
        if (isBinary) {
          socket.close(CloseCode.BadRequest, 'binary messages are not part of graphql-transport-ws');
          return;
        }
        handle(data.toString()).catch((error: unknown) => {
          this.options.warn('graphql-ws: internal error handling a message', error);
          socket.close(CloseCode.InternalServerError, 'internal server error');
        });
      }),
    }, connection);
    socket.once('close', (code: number, why: Buffer) => {
      this.connections.delete(connection);
      slot.release();
      connection.unwatch();
      void closed(code, why.toString());
    });
  }

  private protocolServer() {
    const { options } = this;
    return makeServer<Record<string, unknown> | undefined, Connection>({
      schema: options.schema,
      connectionInitWaitTimeout: options.initTimeoutMs,
      onConnect: async (ctx) => this.connect(ctx),
      onSubscribe: async (ctx, id, payload) => {
        const connection = ctx.extra;
        const caller = connection.caller!;
        // This one is counted already (graphql-ws reserves its id first).
        if (Object.keys(ctx.subscriptions).length > options.maxSubscriptionsPerConnection) {
          return this.refuse(connection, id, [{
            message: `at most ${options.maxSubscriptionsPerConnection} subscriptions per connection (LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION): complete one first`,
            extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: options.maxSubscriptionsPerConnection },
          }]);
        }
        if (caller.key && (await options.access.stillValid(connection.credentials)) === false) {
          // Revoked since the connection started: refused, and the connection closed as the key watch would.
          const message = revokedMessage(caller.key.prefix);
          void this.end(connection, CloseCode.Unauthorized, message);
          return this.refuse(connection, id, [{ message, extensions: { code: 'UNAUTHENTICATED' } }]);
        }
        let release = () => {};
        const prepared = await options.operations.prepare(payload, caller, (live) => {
          const granted = options.capacity.subscribe(caller, live.ids.length);
          if (isCapRefusal(granted)) return capAnswer(granted);
          release = granted;
          return undefined;
        });
        if ('refusal' in prepared) {
          release();
          return this.refuse(connection, id, prepared.refusal.errors);
        }
        const checked: Checked = { live: prepared.operation, connection, release };
        return { schema: options.schema, document: prepared.operation.document, operationName: prepared.operation.operationName, contextValue: checked };
      },
      subscribe: (args) => {
        const { live, connection, release } = args.contextValue as Checked;
        const subscription: LiveSubscription = options.hub.subscribe(live);
        subscription.onEnd = release;
        subscription.onStalled = () => void this.end(connection, 1013, `too slow: events waited more than ${this.options.hub.slowConsumerMs} ms to be sent; reconnect for the current state`);
        // Its results' errors are formatted already (plain objects): onNext hands them over as they are.
        return subscription as unknown as AsyncGenerator<ExecutionResult>;
      },
      // Results are already formatted (hub.ts); graphql-ws would call toJSON on their errors.
      onNext: (_ctx, _id, _payload, _args, result) => result as never,
      onError: (ctx, id) => ctx.extra.refusals.get(id) as never,
      onComplete: (ctx, id) => { ctx.extra.refusals.delete(id); },
    });
  }

  private refuse(connection: Connection, id: string, errors: readonly GraphQLFormattedError[]): GraphQLError[] {
    connection.refusals.set(id, errors);
    // graphql-ws sends onError's errors (these only tell it that there are some).
    return errors.map((error) => new GraphQLError(error.message));
  }

  /** connection_init: who is calling, and what connecting costs them; false (closed already) when refused. */
  private async connect(ctx: Context<Record<string, unknown> | undefined, Connection>): Promise<boolean> {
    const { access } = this.options;
    const connection = ctx.extra;
    const { socket, request } = connection;
    if (socket.readyState !== socket.OPEN) return false;
    const headers = { ...request.headers, ...credentialsOf(ctx.connectionParams) };
    const address = this.options.clientAddress(request);
    let caller: Caller;
    try {
      caller = await access.identify(headers, address);
      access.require(caller, 'read');
    } catch (error) {
      if (error instanceof ConflictingKeys) socket.close(CloseCode.BadRequest, reason(error.message));
      else if (error instanceof AddressRateLimited) socket.close(CloseCode.TooManyInitialisationRequests, reason(error.message));
      else if (error instanceof Unauthenticated) socket.close(CloseCode.Unauthorized, reason(error.message));
      else if (isIdentifyFailure(error)) socket.close(1013, reason(error.message));
      else throw error;
      return false;
    }
    const capped = connection.slot.identified(caller);
    if (capped) {
      socket.close(capCloseCode(capped), reason(capped.message));
      return false;
    }
    // An anonymous connection paid at its upgrade; one with a key pays its key's budget too.
    const decision = caller.key ? await access.spend(caller, CONNECTION_COST) : undefined;
    if (decision && !decision.allowed) {
      socket.close(CloseCode.TooManyInitialisationRequests, reason(rateLimitMessage(caller, decision, CONNECTION_COST)));
      return false;
    }
    connection.caller = caller;
    connection.credentials = headers;
    connection.unwatch = this.options.keyWatch.hold(caller, headers, (message) => void this.end(connection, CloseCode.Unauthorized, message));
    // Closed while its key was checked: its close handler has run already.
    if ((socket.readyState as number) === socket.CLOSED) connection.unwatch();
    return true;
  }
}

/** The close code of a cap: 4429 when the client holds too much (retrying will not help), 1013 when it may try again. */
function capCloseCode(refusal: CapRefusal): number {
  return refusal.scope === 'client' ? CloseCode.TooManyInitialisationRequests : 1013;
}

/**
 * The API key a client put in connection_init's payload: `Authorization`
 * ("Bearer <key>") or `x-api-key`, in any letter case, as headers would carry it.
 */
function credentialsOf(params: Record<string, unknown> | undefined): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    const lower = name.toLowerCase();
    if ((lower === 'authorization' || lower === 'x-api-key') && typeof value === 'string') found[lower] = value;
  }
  return found;
}

export { GRAPHQL_TRANSPORT_WS_PROTOCOL };
