// npm start: configuration, database (embedded or DATABASE_URL), migrations,
// sample data on an empty embedded database, then the HTTP server: in this
// process, or in WORKERS worker processes sharing the port (node:cluster).
import cluster from 'node:cluster';
import { loadConfig } from './config.ts';
import { runCommand } from './commands/run.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { catalogueIsEmpty, loadSampleCatalogue } from './db/sample.ts';
import { startServer } from './server.ts';
import { serveClusterMetrics } from './observability/cluster-metrics.ts';

const log = (message: string) => console.log(message);

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** A worker: serve until told to stop. The primary owns the database setup. */
async function runWorker(): Promise<void> {
  const config = loadConfig();
  const databaseUrl = process.env.CATALOGUE_WORKER_DATABASE_URL as string;
  const server = await startServer(config, databaseUrl, cluster.worker?.id === 1 ? log : () => {});
  await waitForSignal();
  await server.close();
}

async function runPrimary(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config, log);
  await migrate(database.url, log);
  if (database.embedded && (await catalogueIsEmpty(database.url))) {
    await loadSampleCatalogue(config, database.url, log);
  }
  if (config.workers === 1) {
    const server = await startServer(config, database.url, log);
    log(`${await waitForSignal()} received, shutting down`);
    await server.close();
    await database.close();
    return;
  }
  log(`starting ${config.workers} worker processes`);
  // /metrics on any worker shows every worker's metrics added up.
  serveClusterMetrics();
  let stopping = false;
  const fork = () => cluster.fork({ CATALOGUE_WORKER_DATABASE_URL: database.url });
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
  log(`${await waitForSignal()} received, shutting down`);
  stopping = true;
  await Promise.all(Object.values(cluster.workers ?? {}).map((worker) => new Promise<void>((resolve) => {
    if (!worker) return resolve();
    worker.once('exit', () => resolve());
    worker.kill('SIGTERM');
  })));
  await database.close();
}

runCommand(cluster.isPrimary ? runPrimary : runWorker);
