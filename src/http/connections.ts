// Connections cannot be held: how long a client may take to send a request,
// how long a connection may stay idle, and how many one process holds.
// node:http enforces the headers and request timeouts itself: a request not
// complete in time gets a 408 and its connection is closed, and the headers
// timeout also runs from the moment a connection opens, so one that sends
// nothing (or only blank lines) gets the same. But it checks them only every
// connectionsCheckingInterval, 30 s by default: set here.
//
// One client address may hold at most HTTP_MAX_CONNECTIONS_PER_ADDRESS of
// them, so that no one client can take every connection of a process (and
// with them every other client's requests). Counted by the socket's address, except a proxy's that TRUST_PROXY
// trusts: its clients are told apart by X-Forwarded-For, which a connection
// does not carry before its first request; the proxy caps them
// (deploy/nginx/nginx.conf: limit_conn), and the API its live connections by
// the forwarded address (src/graphql/subscriptions/capacity.ts).
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config.ts';

/** What a client is told to wait before trying again past a cap on what it holds (connections end on their own time, not on a clock). */
export const CAP_RETRY_AFTER_SECONDS = 5;

export interface ConnectionLimits {
  /** A request's headers, from its first byte; also how long a new connection may stay silent. */
  headersTimeoutMs: number;
  /** A whole request, headers and body. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** Connections this process holds at most. */
  maxConnections: number;
  /** Connections one client address holds at most (proxies TRUST_PROXY trusts excepted). */
  maxConnectionsPerAddress: number;
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

/** Whether a connection's peer is a proxy TRUST_PROXY trusts (a hop count or `on`: any peer is the nearest hop). */
export function trustedProxyRule(trustProxy: Config['trustProxy']): (address: string) => boolean {
  if (trustProxy === false) return () => false;
  if (trustProxy === true || typeof trustProxy === 'number') return () => true;
  const trusted = proxyAddr.compile(trustProxy);
  return (address) => trusted(address, 0);
}

/** The answer to a connection past its address's cap, written before its request is read; then it is closed. */
function tooManyConnections(limit: number): string {
  const body = JSON.stringify({ error: `at most ${limit} connections per client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS): close one first, or retry in ${CAP_RETRY_AFTER_SECONDS} s` });
  return `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${CAP_RETRY_AFTER_SECONDS}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * Closes a new connection beyond `maxConnections` at once, and answers one
 * beyond its address's `maxConnectionsPerAddress` with a 429 and closes it.
 * Counted here rather than with server.maxConnections: in a cluster worker, a
 * connection refused by maxConnections goes back to the primary, which hands
 * it to a worker again at once, round and round while every worker is full.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, isTrustedProxy: (address: string) => boolean): void {
  let open = 0;
  const perAddress = new Map<string, number>();
  const refusal = tooManyConnections(limits.maxConnectionsPerAddress);
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      socket.destroy();
      return;
    }
    const address = socket.remoteAddress ?? '';
    const counted = !isTrustedProxy(address);
    const held = counted ? perAddress.get(address) ?? 0 : 0;
    if (counted && held >= limits.maxConnectionsPerAddress) {
      refuse(socket, refusal);
      return;
    }
    open++;
    if (counted) perAddress.set(address, held + 1);
    socket.once('close', () => {
      open--;
      if (!counted) return;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
}

/**
 * Answers and closes a connection node:http has taken already: its parser is
 * detached first, so nothing the client sends is read or answered again.
 */
function refuse(socket: Socket, answer: string): void {
  socket.removeAllListeners('data');
  socket.on('data', () => {});
  socket.on('error', () => socket.destroy());
  socket.end(answer);
  // A client that never reads its answer does not hold the socket.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
