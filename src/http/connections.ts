// Connections cannot be held: how long a client may take to send a request,
// how long a connection may stay silent or idle, and how many one process
// holds. node:http enforces the headers and request timeouts itself (answering
// 408 and closing), but only checks them every connectionsCheckingInterval
// (30 s by default) and has no limit at all for a connection that never sends
// a byte; those two are set here.
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
 * On top of node:http's own timeouts: closes a new connection beyond
 * `maxConnections` at once, and one that has sent nothing (not a byte) within
 * the headers timeout. A connection that has sent bytes but begun no request
 * within twice that (only blank lines, which node:http skips) gets a 408 and
 * is closed; one whose request has begun is node:http's to time out.
 *
 * The cap is counted here rather than with server.maxConnections: in a
 * cluster worker, a connection refused by maxConnections goes back to the
 * primary, which hands it to a worker again at once, round and round while
 * every worker is full.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  let open = 0;
  /** Connections that have not begun a request yet, and their timers. */
  const silent = new Map<Socket, NodeJS.Timeout>();
  const forget = (socket: Socket) => {
    const timer = silent.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    silent.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      socket.destroy();
      return;
    }
    open++;
    socket.once('close', () => {
      open--;
      forget(socket);
    });
    silent.set(socket, setTimeout(() => {
      if (socket.bytesRead === 0) {
        socket.destroy();
        return;
      }
      silent.set(socket, setTimeout(() => {
        silent.delete(socket);
        if (socket.writable) socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        socket.destroy();
      }, limits.headersTimeoutMs));
    }, limits.headersTimeoutMs));
  });
  server.on('request', (request: { socket: Socket }) => forget(request.socket));
}
