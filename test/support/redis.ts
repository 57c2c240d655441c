// A real Redis server of the test's own (so a test can stop and start it),
// from the redis-server binary (.ci/run installs it). Tests that need Redis
// never skip in CI: there, a missing binary is a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../bench/lib/free-port.ts';

export function redisAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version']).status === 0;
  if (!found && process.env.CI) throw new Error('redis-server is not installed; .ci/run must install it (tests that need Redis never skip in CI)');
  return found;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

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
  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.args], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !(await listening(this.port)); i++) await new Promise((r) => setTimeout(r, 50));
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

export async function startTestRedis(args: string[] = []): Promise<TestRedis> {
  const redis = new TestRedis(await freePort(), args);
  await redis.start();
  return redis;
}

/** Waits (up to 2 s) until an app's response cache is connected to its Redis. */
export async function cacheConnected(app: { cache: unknown }): Promise<void> {
  const store = (app.cache as { store?: { client?: { status: string } } } | undefined)?.store;
  for (let i = 0; i < 100 && store?.client && store.client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
}
