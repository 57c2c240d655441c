// Graceful shutdown of one HTTP server, without resetting a request that
// reached it:
//   1. stop accepting connections (the listening socket closes; in a cluster
//      worker, the primary stops handing it connections), leaving the open
//      ones alone;
//   2. drain: every request that arrives from now on, on any connection, is
//      answered 503 with Retry-After and Connection: close, and every response
//      closes its connection, so clients go elsewhere connection by
//      connection. Idle kept-alive connections stay open for a grace period,
//      because a client may already have sent its next request on one: closing
//      it under that request would reset it unanswered;
//   3. then Fastify's close: the connections still idle are closed, the
//      requests still in flight finish, and the onClose hooks run (Apollo,
//      the cache, the database pool).
// A request that outlives the deadline does not hold the process forever.
import net from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';

export class DrainTimeout extends Error {}

/** Seconds a client is told to wait before trying again (on another instance, or this one restarted). */
const RETRY_AFTER_SECONDS = 2;
const MESSAGE = 'the server is shutting down, try again shortly';

interface DrainState {
  draining: boolean;
  /** Resolves once the listening socket is closed and no connection is left. */
  drained?: Promise<void>;
}

const states = new WeakMap<FastifyInstance, DrainState>();

function stateOf(app: FastifyInstance): DrainState {
  let state = states.get(app);
  if (!state) states.set(app, state = { draining: false });
  return state;
}

function unavailable(url: string, reply: FastifyReply): void {
  reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('connection', 'close');
  // GraphQL clients get a GraphQL error, as for a database outage.
  if (url.startsWith('/graphql')) void reply.send({ errors: [{ message: MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
  else void reply.send({ error: MESSAGE });
}

/**
 * Registers the drain behaviour (call it once every response's own onRequest
 * hooks are registered: the 503 skips the onRequest hooks after it). Also
 * when Fastify's close() is called directly (tests), not through drain():
 * once closing has begun, new requests get the 503 and every response closes
 * its connection, which would otherwise stay open, idle, for the keep-alive
 * timeout and hold the server (and the process) open that long. Fastify's own
 * 503 while closing (return503OnClosing) has no Retry-After: switch it off.
 */
export function closeConnectionsWhenDraining(app: FastifyInstance): void {
  const state = stateOf(app);
  app.addHook('preClose', async () => { state.draining = true; });
  app.addHook('onRequest', (request, reply, done) => {
    if (state.draining) unavailable(request.url, reply);
    else done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (state.draining) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * Step 1: closes the listening socket and nothing else (node:http's close()
 * would also close every idle kept-alive connection at once). Idempotent. In
 * a cluster worker the primary is told; it closes the shared socket once no
 * worker listens any more.
 */
export function stopAccepting(app: FastifyInstance): void {
  const state = stateOf(app);
  if (state.drained) return;
  const server = app.server;
  if (!server.listening) {
    state.drained = Promise.resolve();
    return;
  }
  state.drained = new Promise((resolve) => server.once('close', () => resolve()));
  net.Server.prototype.close.call(server);
}

export interface DrainOptions {
  /** Longest the whole drain may take (0: no limit); then DrainTimeout. */
  timeoutMs: number;
  /** How long idle kept-alive connections stay open for a request already on its way (ends early once none is left). */
  idleGraceMs: number;
}

/** Resolves once drained; rejects with DrainTimeout after `timeoutMs` (0: no limit). */
export async function drain(app: FastifyInstance, options: DrainOptions): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    if (options.timeoutMs > 0) timer = setTimeout(() => reject(new DrainTimeout(`requests still in flight after ${options.timeoutMs} ms (SHUTDOWN_TIMEOUT_MS); stopping anyway`)), options.timeoutMs);
  });
  try {
    stopAccepting(app);
    stateOf(app).draining = true;
    const graceOver = new Promise<void>((resolve) => { grace = setTimeout(resolve, options.idleGraceMs); });
    await Promise.race([stateOf(app).drained, graceOver, deadline]);
    await Promise.race([app.close(), deadline]);
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
  }
}
