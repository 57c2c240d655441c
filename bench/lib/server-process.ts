// The servers a benchmark measures, each in a process of its own on a free
// port: the API (`node src/main.ts`, what `npm start` runs) and the baseline
// handler (bench/baseline-server.ts). A server is up once /healthz answers from
// that process or one of its cluster workers (the pid in the answer says
// which): on a shared machine another program may take the port between
// choosing it and listening on it, and its answers must not count.
//
// spawnServer, the one way a server process is started, is shared with the
// tests (test/support/api-process.ts starts `node src/main.ts` through it):
// it lives here because bench/ is a program of its own that must not depend
// on test/ (whose helpers import vitest), while the tests already use bench/lib.
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

/** A server process started by spawnServer. */
export interface SpawnedServer extends ServerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it printed so far, when captured: stdout and stderr as they came, and stdout alone. */
  output(): string;
  stdout(): string;
}

/** A server's place on another host of the topology bench (bench/lib/topology/). */
export interface Placement {
  netns: string;
  host: string;
  port: number;
}

/** The command that runs `args` (node and its arguments) in `placement`'s namespace, or here. */
export function commandIn(placement: Placement | undefined, args: string[]): [string, string[]] {
  return placement ? ['ip', ['netns', 'exec', placement.netns, ...args]] : [args[0]!, args.slice(1)];
}

/** What a readiness probe found: the server is up, not yet, or another program answers on its port. */
export type Probe = 'ready' | 'waiting' | 'other';

export interface SpawnOptions {
  /** The script (relative to the repository) and its arguments, and its environment on top of this process's, for a port. */
  launch: (port: number) => { script: string; args?: string[]; env: Record<string, string>; root?: string };
  /** Asked until it says 'ready' (or 'other'), every `intervalMs` for up to `timeoutMs`, while the process runs. */
  probe: (server: SpawnedServer) => Promise<Probe>;
  intervalMs: number;
  timeoutMs: number;
  /** Ports tried when another program answers on the chosen one (default 1). */
  portAttempts?: number;
  /** Where it runs, when not on a free port of 127.0.0.1 here: a network namespace, its address and a port (npm run bench:topology). */
  placement?: Placement;
  /** Captured for output() (default: ignored), or shown with ours (stderr's default). */
  stdout?: 'capture' | 'ignore';
  stderr?: 'capture' | 'inherit';
  /** Every chunk of stdout, from the first (needs stdout 'capture'). */
  onStdout?: (chunk: string) => void;
  /** The error thrown when the server did not come up (after it was stopped). */
  failure: (server: SpawnedServer, probe: 'other' | 'waiting') => Error;
}

/**
 * Spawns `node <script>` on a free port of 127.0.0.1 and waits until the probe
 * says it is ready. Fails (stopping it) when the process exits first, the time
 * is up, or another program answers on every port tried.
 */
export async function spawnServer(options: SpawnOptions): Promise<SpawnedServer> {
  for (let attempt = 1; ; attempt++) {
    const port = options.placement?.port ?? await freePort();
    const { script, args = [], env, root = ROOT } = options.launch(port);
    const [command, commandArgs] = commandIn(options.placement, [process.execPath, path.join(root, script), ...args]);
    const child = spawn(command, commandArgs, {
      stdio: ['ignore', options.stdout === 'capture' ? 'pipe' : 'ignore', options.stderr === 'capture' ? 'pipe' : 'inherit'],
      env: { ...process.env, ...env },
    });
    let output = '';
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr?.on('data', (chunk: string) => { output += chunk; });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const server: SpawnedServer = {
      url: `http://${options.placement?.host ?? '127.0.0.1'}:${port}`, port, child, exited,
      output: () => output,
      stdout: () => stdout,
      running: () => child.exitCode === null && child.signalCode === null,
      stop: () => stopProcess(child, exited),
    };
    let probe: Probe = 'waiting';
    for (const deadline = Date.now() + options.timeoutMs; Date.now() < deadline && server.running() && probe === 'waiting';) {
      probe = await options.probe(server);
      if (probe === 'waiting') await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
    if (probe === 'ready') return server;
    await server.stop();
    if (probe === 'waiting' || attempt >= (options.portAttempts ?? 1)) throw options.failure(server, probe);
  }
}

/** SIGTERM, SIGKILL 15 s later if it is still running, until it has exited. */
async function stopProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killed);
}

type Launch = (port: number) => { script: string; args: string[]; env: Record<string, string>; root?: string };

async function startProcess(name: string, launch: Launch, placement?: Placement): Promise<ServerProcess> {
  const answers = { ours: 'ready', other: 'other', down: 'waiting' } as const;
  return spawnServer({
    launch,
    placement,
    probe: async (server) => answers[await whoAnswers(server.url, server.child)],
    intervalMs: 200,
    timeoutMs: 60_000,
    portAttempts: PORT_ATTEMPTS,
    failure: (server, probe) => new BenchError(`${name} did not start on port ${server.port} (${probe === 'other' ? 'another program answers there' : `exit code ${server.child.exitCode}`})`),
  });
}

export interface ApiOptions {
  databaseUrl: string;
  workers: number;
  cache: CacheMode;
  /** Used when cache is 'redis'. */
  redisUrl?: string;
  /** Environment on top of the benchmark's own (e.g. DATABASE_POOL_SIZE). */
  env?: Record<string, string>;
  /** On a host of the topology bench instead of 127.0.0.1 here. */
  placement?: Placement;
  /** The cache's key prefix; by default a fresh one, so a run never starts on another run's entries (API processes that share a cache share one). */
  cachePrefix?: string;
  /** Another checkout of the API to run (its src/main.ts), to compare it with this one on the same data in the same run; default this one. */
  root?: string;
}

/** The API in production mode, with the given cache mode and cluster workers. */
export async function startApi(options: ApiOptions): Promise<ServerProcess> {
  const cacheEnv: Record<string, string> = options.cache === 'off'
    ? { CACHE: 'off' }
    : { CACHE: 'on', REDIS_URL: options.cache === 'redis' ? (options.redisUrl ?? 'redis://127.0.0.1:6379') : '', CACHE_PREFIX: options.cachePrefix ?? `bench${Date.now()}:` };
  const api = await startProcess(`the API${options.root ? ` at ${options.root}` : ''} (${options.workers} workers, cache ${options.cache})`, (port) => ({
    script: 'src/main.ts',
    root: options.root,
    args: [],
    env: {
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: options.placement?.host ?? '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      WORKERS: String(options.workers),
      // One address sends thousands of requests a second: the anonymous budget would answer 429s.
      RATE_LIMIT: 'off',
      // /healthz shows its pid and cache counters to this token's holders only (production).
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      ...cacheEnv,
    },
  }), options.placement);
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

/** Which floor a baseline handler is: the read-model one, or the base-tables one (bench/baseline-server.ts). */
export type BaselineSource = 'documents' | 'tables';

/** A baseline handler (bench/baseline-server.ts) with as many workers and connections as the API gets. */
export function startBaseline(options: { databaseUrl: string; workers: number; poolSize: number; source?: BaselineSource }): Promise<ServerProcess> {
  const source = options.source ?? 'documents';
  return startProcess(`the baseline server (${source}, ${options.workers} workers)`, (port) => ({
    script: 'bench/baseline-server.ts',
    args: ['--database-url', options.databaseUrl, '--port', String(port), '--workers', String(options.workers), '--pool-size', String(options.poolSize), '--source', source],
    env: {},
  }));
}
