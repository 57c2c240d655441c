// A real Redis server of the test's own (so a test can stop and start it),
// from the redis-server binary (.ci/run installs it). Tests that need Redis
// never skip in CI: there, a missing binary is a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../bench/lib/free-port.ts';
import { until } from './wait.ts';

export function redisAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version']).status === 0;
  if (!found && process.env.CI) throw new Error('redis-server is not installed; .ci/run must install it (tests that need Redis never skip in CI)');
  return found;
}

/**
 * The process id of the Redis answering on `port` (INFO server), or undefined
 * when nothing answers there yet.
 */
function redisPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (pid: number | undefined) => { socket.destroy(); resolve(pid); };
    socket.setTimeout(1_000, () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      const match = /process_id:(\d+)\r\n/.exec(reply);
      if (match) done(Number(match[1]));
    });
    socket.once('error', () => done(undefined));
    socket.once('end', () => done(undefined));
  });
}

/** The port found free was taken by another server before ours could bind it. */
export class PortTakenError extends Error {}

export class TestRedis {
  readonly port: number;
  /** Extra redis-server arguments (later ones win: e.g. --appendonly yes, --replicaof host port). */
  private readonly args: string[];
  private process: ChildProcess | undefined;
  constructor(port: number, args: string[] = []) {
    this.port = port;
    this.args = args;
  }
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  /**
   * Starts the server and waits until it answers. It must be this server that
   * answers: a port found free can be taken by another file's server before
   * ours binds it (ours then exits), and a test must never share another's Redis.
   */
  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.args], { stdio: 'ignore' });
    this.process = child;
    // A failure bound, not a wait: a loaded host can take seconds to start it.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && child.exitCode === null && child.signalCode === null;) {
      if ((await redisPid(this.port)) === child.pid) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    const exited = child.exitCode !== null || child.signalCode !== null;
    if (!exited) child.kill('SIGKILL');
    this.process = undefined;
    throw new PortTakenError(`redis-server on port ${this.port} ${exited ? 'exited at start (port taken by another server?)' : 'did not answer within 20 s'}`);
  }
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.process = undefined;
  }
}

/** A Redis of the caller's own on a free port (another port if the one found is taken before it binds). */
export async function startTestRedis(args: string[] = []): Promise<TestRedis> {
  for (let attempt = 1; ; attempt++) {
    const redis = new TestRedis(await freePort(), args);
    try {
      await redis.start();
      return redis;
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 3) throw error;
    }
  }
}

/** Waits until an app's response cache is connected to its Redis (if it has one). */
export async function cacheConnected(app: { cache: unknown }): Promise<void> {
  const store = (app.cache as { store?: { client?: { status: string } } } | undefined)?.store;
  if (store?.client) await redisReady(store.client);
}

/** Waits until an ioredis client is connected ('ready'). */
export async function redisReady(client: { status: string }, timeoutMs = 15_000): Promise<void> {
  await until('the Redis client ready', () => client.status === 'ready', { timeoutMs });
}
