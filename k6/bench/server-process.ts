// The servers a benchmark measures, each in a process of its own on a free
// port: the API (`node src/main.ts`, what `npm start` runs) and the baseline
// handler (k6/baseline-server.ts). Both are up once /healthz answers.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../src/util/free-port.ts';
import { freshGet } from './fresh-get.ts';
import { healthOfWorkers } from './worker-health.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type CacheMode = 'off' | 'memory' | 'redis';
export const CACHE_MODES: readonly CacheMode[] = ['off', 'memory', 'redis'];

export interface ServerProcess {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  port: number;
  /** SIGTERM, then waits for the process (and so its cluster workers) to exit. */
  stop(): Promise<void>;
}

async function startProcess(name: string, script: string, args: string[], env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const server = { url, port, stop: () => stopProcess(child, exited) };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await freshGet(`${url}/healthz`)).status === 200) return server;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await server.stop();
  throw new Error(`${name} on port ${port} did not start (exit code ${child.exitCode})`);
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killed);
}

export interface ApiOptions {
  databaseUrl: string;
  workers: number;
  cache: CacheMode;
  /** Used when cache is 'redis'. */
  redisUrl?: string;
  /** Environment on top of the benchmark's own (e.g. DATABASE_POOL_SIZE). */
  env?: Record<string, string>;
}

/** The API in production mode, with the given cache mode and cluster workers. */
export async function startApi(options: ApiOptions): Promise<ServerProcess> {
  const port = await freePort();
  const cacheEnv: Record<string, string> = options.cache === 'off'
    ? { CACHE: 'off' }
    // A fresh prefix: a run never starts on another run's cached entries.
    : { CACHE: 'on', REDIS_URL: options.cache === 'redis' ? (options.redisUrl ?? 'redis://127.0.0.1:6379') : '', CACHE_PREFIX: `bench${Date.now()}:` };
  const api = await startProcess(`the API (${options.workers} workers, cache ${options.cache})`, 'src/main.ts', [], {
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    WORKERS: String(options.workers),
    ...cacheEnv,
  }, port);
  await waitForWorkers(api, options.workers);
  return api;
}

/** Until every cluster worker listens (the first one to listen already answers /healthz). */
async function waitForWorkers(api: ServerProcess, workers: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await healthOfWorkers(api.url, workers, 2 * workers)).size < workers) {
    if (Date.now() > deadline) {
      await api.stop();
      throw new Error(`only some of the API's ${workers} workers started within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The baseline handler (k6/baseline-server.ts) with as many workers and connections as the API gets. */
export async function startBaseline(options: { databaseUrl: string; workers: number; poolSize: number }): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess(`the baseline server (${options.workers} workers)`, 'k6/baseline-server.ts', [
    '--database-url', options.databaseUrl, '--port', String(port), '--workers', String(options.workers), '--pool-size', String(options.poolSize),
  ], {}, port);
}
