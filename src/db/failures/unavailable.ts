// Which failures mean "Postgres cannot answer right now" (down, restarting,
// unreachable, overloaded, too slow) rather than "this request is wrong" or "a
// bug". Those are the client's to retry: REST answers 503 with Retry-After and
// the message below, GraphQL the same status with code SERVICE_UNAVAILABLE.
// Nothing from the driver (host, database, SQL) ever reaches the client.
//
// Every wrapping of the failure is looked at (./error-layers.ts).
import { errorLayers } from './error-layers.ts';

export const DATABASE_UNAVAILABLE_MESSAGE = 'database unavailable, try again shortly';

/** What Retry-After says: Postgres restarts and pool queues clear within seconds. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * SQLSTATEs: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now
 * (starting up or shutting down), 57014 query_canceled (statement_timeout),
 * 53300 too_many_connections; and all of class 08, connection exceptions.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);

/** Socket failures on the way to Postgres. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EAI_AGAIN']);

/**
 * Prisma's codes: P1001 cannot reach the server, P1002 it timed out, P1008
 * operation timed out, P1017 the server closed the connection, P2024 pool timeout.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Kinds Prisma's driver adapter gives socket and capacity failures. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * pg and pg-pool report these without a code: pool wait timeout, connect
 * timeout, a dropped connection, the driver's query_timeout, use of a broken
 * client, and a pool already shut down.
 */
const DRIVER_MESSAGES = /^(timeout exceeded when trying to connect|timeout expired|Connection terminated( unexpectedly| due to connection timeout)?|Query read timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)$/;

function codeMeansUnavailable(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SOCKET_CODES.has(code) || PRISMA_CODES.has(code);
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const layer of errorLayers(error)) {
    if (codeMeansUnavailable(layer.code) || codeMeansUnavailable(layer.originalCode)) return true;
    if (typeof layer.kind === 'string' && ADAPTER_KINDS.has(layer.kind)) return true;
    if (typeof layer.message === 'string' && DRIVER_MESSAGES.test(layer.message)) return true;
  }
  return false;
}
