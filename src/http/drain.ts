// Graceful shutdown of one HTTP server: stop accepting connections, let the
// requests already in flight finish (Fastify answers 503 to any new request on
// a kept-alive connection meanwhile), then run the onClose hooks (Apollo, the
// cache, the database pool). A request that outlives the deadline does not
// hold the process forever.
import type { FastifyInstance } from 'fastify';

export class DrainTimeout extends Error {}

/**
 * Once closing has begun, every response closes its connection. A request in
 * flight when close() was called arrived on a kept-alive connection, which
 * would otherwise stay open, idle, for the keep-alive timeout and hold the
 * server (and the process) open that long after its response.
 */
export function closeConnectionsWhenDraining(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}

/** Resolves once drained; rejects with DrainTimeout after `timeoutMs` (0: no limit). */
export async function drain(server: FastifyInstance, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    if (timeoutMs > 0) timer = setTimeout(() => reject(new DrainTimeout(`requests still in flight after ${timeoutMs} ms (SHUTDOWN_TIMEOUT_MS); stopping anyway`)), timeoutMs);
  });
  try {
    await Promise.race([server.close(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
