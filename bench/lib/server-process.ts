// The servers a benchmark measures, each in a process of its own on a free
// port: the API (`node src/main.ts`, what `npm start` runs) and the baseline
// handler (bench/baseline-server.ts). A server is up once /healthz answers from
// that process or one of its cluster workers (the pid in the answer says
// which): on a shared machine another program may take the port between
// choosing it and listening on it, and its answers must not count.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port.ts';
import { BenchError } from './bench-error.ts';
import { ADMIN_HEADERS, BENCH_ADMIN_TOKEN } from './admin-token.ts';
import { freshGet } from './fresh-get.ts';
import { healthOfWorkers } from './worker-health.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Ports tried before giving up, when another program takes the chosen one. */
const PORT_ATTEMPTS = 3;

export type CacheMode = 'off' | 'memory' | 'redis';
export const CACHE_MODES: readonly CacheMode[] = ['off', 'memory', 'redis'];

export interface ServerProcess {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  port: number;
  /** False once the process has exited (a crash during a run). */
  running(): boolean;
  /** SIGTERM, then waits for the process (and so its cluster workers) to exit. */
  stop(): Promise<void>;
}

/** The parent of `pid` (Linux /proc), or undefined when it cannot be read. */
function parentPid(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: state, ppid, ...
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** 'ours' when /healthz was answered by `child` or its worker, 'other' by another program, 'down' when nothing answered. */
async function whoAnswers(url: string, child: ChildProcess): Promise<'ours' | 'other' | 'down'> {
  try {
    const response = await freshGet(`${url}/healthz`, ADMIN_HEADERS);
    if (response.status !== 200) return 'other';
    const pid = (JSON.parse(response.body) as { pid?: number }).pid;
    return pid !== undefined && (pid === child.pid || parentPid(pid) === child.pid) ? 'ours' : 'other';
  } catch {
    return 'down';
  }
}

type Launch = (port: number) => { script: string; args: string[]; env: Record<string, string> };

async function startProcess(name: string, launch: Launch): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const { script, args, env } = launch(port);
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...env },
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${port}`;
    const server: ServerProcess = {
      url, port,
      running: () => child.exitCode === null && child.signalCode === null,
      stop: () => stopProcess(child, exited),
    };
    let answer: 'ours' | 'other' | 'down' = 'down';
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && server.running() && answer === 'down';) {
      answer = await whoAnswers(url, child);
      if (answer === 'down') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (answer === 'ours') return server;
    await server.stop();
    if (answer !== 'other' || attempt === PORT_ATTEMPTS) throw new BenchError(`${name} did not start on port ${port} (${answer === 'other' ? 'another program answers there' : `exit code ${child.exitCode}`})`);
  }
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
  const cacheEnv: Record<string, string> = options.cache === 'off'
    ? { CACHE: 'off' }
    // A fresh prefix: a run never starts on another run's cached entries.
    : { CACHE: 'on', REDIS_URL: options.cache === 'redis' ? (options.redisUrl ?? 'redis://127.0.0.1:6379') : '', CACHE_PREFIX: `bench${Date.now()}:` };
  const api = await startProcess(`the API (${options.workers} workers, cache ${options.cache})`, (port) => ({
    script: 'src/main.ts',
    args: [],
    env: {
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      WORKERS: String(options.workers),
      // One address sends thousands of requests a second: the anonymous budget would answer 429s.
      RATE_LIMIT: 'off',
      // /healthz shows its pid and cache counters to this token's holders only (production).
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      ...cacheEnv,
    },
  }));
  await waitForWorkers(api, options.workers);
  return api;
}

/** Until every cluster worker listens (the first one to listen already answers /healthz). */
async function waitForWorkers(api: ServerProcess, workers: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await healthOfWorkers(api.url, workers, 2 * workers)).size < workers) {
    if (Date.now() > deadline) {
      await api.stop();
      throw new BenchError(`only some of the API's ${workers} workers started within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The baseline handler (bench/baseline-server.ts) with as many workers and connections as the API gets. */
export function startBaseline(options: { databaseUrl: string; workers: number; poolSize: number }): Promise<ServerProcess> {
  return startProcess(`the baseline server (${options.workers} workers)`, (port) => ({
    script: 'bench/baseline-server.ts',
    args: ['--database-url', options.databaseUrl, '--port', String(port), '--workers', String(options.workers), '--pool-size', String(options.poolSize)],
    env: {},
  }));
}
