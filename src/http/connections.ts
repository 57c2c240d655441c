// Connections cannot be held: how long a client may take to send a request,
// how long a connection may stay idle, and how many one process holds.
// node:http enforces the headers and request timeouts itself: a request not
// complete in time gets a 408 and its connection is closed, and the headers
// timeout also runs from the moment a connection opens, so one that sends
// nothing (or only blank lines) gets the same. But it checks them only every
// connectionsCheckingInterval, 30 s by default: set here.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** A request's headers, from its first byte; also how long a new connection may stay silent. */
  headersTimeoutMs: number;
  /** A whole request, headers and body. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** Connections this process holds at most. */
  maxConnections: number;
}

/**
 * How often node:http looks for requests past their timeouts: a tenth of the
 * shorter one, at most every second, so a timeout fires at most 10% (or 1 s)
 * late. Each check walks the connections with a request still arriving.
 */
export function checkingIntervalMs(limits: ConnectionLimits): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}

/** The Fastify options that set node:http's timeouts. */
export function timeoutOptions(limits: ConnectionLimits): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  return {
    // Fastify sets these two on the server after creating it (its defaults: none, 72 s).
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      // Node checks headersTimeout <= requestTimeout when creating the server.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits),
    },
  };
}

/**
 * Closes a new connection beyond `maxConnections` at once. Counted here
 * rather than with server.maxConnections: in a cluster worker, a connection
 * refused by maxConnections goes back to the primary, which hands it to a
 * worker again at once, round and round while every worker is full.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      socket.destroy();
      return;
    }
    open++;
    socket.once('close', () => { open--; });
  });
}
