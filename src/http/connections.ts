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
// the forwarded address (src/graphql/subscriptions/capacity.ts). It may
// also open at most HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND a second
// (HTTP_MAX_CONNECTIONS_PER_ADDRESS at once): a client reconnecting in a
// loop as fast as it is refused is refused here, before node:http parses
// anything, instead of at a cap further in.
import type { Server, ServerOptions } from 'node:http';
import { BlockList, type Socket } from 'node:net';
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
  /** Connections one client address holds at most (proxies TRUST_PROXY trusts excepted); also how many it may open at once. */
  maxConnectionsPerAddress: number;
  /** New connections one client address may open a second, on average (proxies TRUST_PROXY trusts excepted). */
  newConnectionsPerAddressPerSecond: number;
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

/** A canned answer to a connection refused before its request is read; then it is closed. */
function tooMany(message: string, retryAfterSeconds: number): string {
  const body = JSON.stringify({ error: message });
  return `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${retryAfterSeconds}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Connections refused since the start, by why (the http_connections_refused_total metric). */
export type ConnectionRefusals = {
  /** Past HTTP_MAX_CONNECTIONS: closed unanswered. */
  process: number;
  /** Past HTTP_MAX_CONNECTIONS_PER_ADDRESS: 429. */
  address: number;
  /** Past HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: 429. */
  rate: number;
};

const refusalCounts = new WeakMap<Server, ConnectionRefusals>();

/** What limitConnections has refused on `server` so far (zeros if it does not limit it). */
export function connectionRefusals(server: Server): ConnectionRefusals {
  return refusalCounts.get(server) ?? { process: 0, address: 0, rate: 0 };
}

/**
 * What an address may do `perSecond` times on average, up to `burst` at
 * once (open a connection; be told why it was refused): a token bucket, kept
 * as the time its next token is due, one number per address, dropped once
 * the bucket is full again.
 */
export class AddressRate {
  private readonly due = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly burstMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(perSecond: number, burst: number) {
    this.intervalMs = 1_000 / perSecond;
    this.burstMs = this.intervalMs * burst;
    // Addresses that stopped connecting are forgotten, so the map holds only recent ones.
    this.sweeper = setInterval(() => this.sweep(), 10_000).unref();
  }

  /** Whether `address` may open one more now (it is counted if so). */
  take(address: string, now = performance.now()): boolean {
    const due = Math.max(this.due.get(address) ?? now, now);
    // Compared as due - now (exactly 0 for an address with a full bucket):
    // (now + interval) - now can round past interval, which refused the
    // first take now and then.
    if (due - now > this.burstMs - this.intervalMs) return false;
    this.due.set(address, due + this.intervalMs);
    return true;
  }

  private sweep(now = performance.now()): void {
    for (const [address, due] of this.due) if (due <= now) this.due.delete(address);
  }

  stop(): void {
    clearInterval(this.sweeper);
  }
}

/**
 * Refuses a new connection beyond `maxConnections` (closed at once,
 * unanswered), beyond its address's `maxConnectionsPerAddress`, or beyond
 * its address's rate of new connections, before node:http takes it: its own
 * 'connection' listeners run only for the connections let in, so a refused
 * one costs no parser, no request, no handshake and no log line, only a
 * count. An address refused is told why (a 429 naming the setting) once a
 * second; its other refusals meanwhile are closed unanswered: on loopback a
 * write was most of what a refusal cost (`node --cpu-prof` under a reconnect
 * flood), and a client reconnecting in a loop does not read them anyway.
 * Counted here rather than with server.maxConnections: in a cluster worker, a
 * connection refused by maxConnections goes back to the primary, which hands
 * it to a worker again at once, round and round while every worker is full.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, isTrustedProxy: (address: string) => boolean): void {
  let open = 0;
  const perAddress = new Map<string, number>();
  const refused: ConnectionRefusals = { process: 0, address: 0, rate: 0 };
  refusalCounts.set(server, refused);
  const capped = tooMany(`at most ${limits.maxConnectionsPerAddress} connections per client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS): close one first, or retry in ${CAP_RETRY_AFTER_SECONDS} s`, CAP_RETRY_AFTER_SECONDS);
  const rated = tooMany(`at most ${limits.newConnectionsPerAddressPerSecond} new connections a second per client address (HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND): keep connections alive, or retry in 1 s`, 1);
  const rate = new AddressRate(limits.newConnectionsPerAddressPerSecond, limits.maxConnectionsPerAddress);
  const told = new AddressRate(1, 1);
  const dropped = new DroppedAddresses(server);
  server.once('close', () => {
    rate.stop();
    told.stop();
    dropped.stop();
  });
  const turnAway = (socket: Socket, address: string, answer: string) => {
    if (told.take(address)) return refuse(socket, answer);
    socket.destroy();
    dropped.add(address, socket.remoteFamily);
  };
  const admit = (socket: Socket): boolean => {
    if (open >= limits.maxConnections) {
      refused.process++;
      socket.destroy();
      return false;
    }
    const address = socket.remoteAddress ?? '';
    const counted = !isTrustedProxy(address);
    const held = counted ? perAddress.get(address) ?? 0 : 0;
    if (counted && held >= limits.maxConnectionsPerAddress) {
      refused.address++;
      turnAway(socket, address, capped);
      return false;
    }
    if (counted && !rate.take(address)) {
      refused.rate++;
      turnAway(socket, address, rated);
      return false;
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
    return true;
  };
  const http = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', function (this: Server, socket: Socket) {
    if (!admit(socket)) return;
    for (const listener of http) listener.call(this, socket);
  });
}

/**
 * Addresses node:net closes as it accepts them, until the next second: an
 * address refused and already told why this second (a client reconnecting
 * in a loop as fast as it is refused). Through the server's block list
 * (net.Server's blockList), checked before a Socket is made or any listener
 * runs: at thousands of attempts a second the Socket and the listeners were
 * most of what a refusal still cost. A BlockList cannot forget an address,
 * so each second a fresh one replaces it; the next attempt after that is told
 * why again (a 429), and dropped again. Dropped attempts are counted by no
 * one: http_connections_refused_total counts the ones seen.
 */
class DroppedAddresses {
  private list = new BlockList();
  private listed = 0;
  private readonly server: Server & { blockList?: BlockList };
  private readonly timer: NodeJS.Timeout;

  constructor(server: Server) {
    this.server = server;
    this.server.blockList = this.list;
    this.timer = setInterval(() => this.forget(), 1_000).unref();
  }

  add(address: string, family: string | undefined): void {
    if (!address) return;
    this.list.addAddress(address, family === 'IPv6' ? 'ipv6' : 'ipv4');
    this.listed++;
  }

  private forget(): void {
    if (this.listed === 0) return;
    this.list = new BlockList();
    this.listed = 0;
    this.server.blockList = this.list;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Answers and closes a connection no parser has taken: what the client sends
 * is read and dropped, so the close is not a reset that could lose the answer.
 */
function refuse(socket: Socket, answer: string): void {
  socket.on('data', () => {});
  socket.on('error', () => socket.destroy());
  socket.end(answer);
  // A client that never reads its answer does not hold the socket.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
