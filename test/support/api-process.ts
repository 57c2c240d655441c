// The real server as a separate process (`node src/main.ts`), as it runs in
// production: for tests of what only a process can show (signals, exit codes,
// several processes sharing one cache).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../bench/lib/free-port.ts';

/** The admin token every process is started with (unless `env` sets its own): in production, /healthz details need it. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Headers that show a probe the details. */
export const ADMIN_HEADERS = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

export interface Readiness {
  /** Accepts the /healthz body. */
  health?: (health: Record<string, any>) => boolean;
  /** Must appear in the output too (e.g. the cluster primary's "all 2 workers listening"). */
  output?: RegExp;
}

/**
 * Starts the server on a free port with `env` on top of this environment
 * (production, warnings only, TEST_ADMIN_TOKEN), and waits until /healthz answers and the
 * readiness conditions hold.
 */
export async function startApiProcess(env: Record<string, string>, ready: Readiness = {}): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300 && child.exitCode === null; i++) {
    try {
      const response = await fetch(`${url}/healthz`, { headers: ADMIN_HEADERS });
      const healthy = response.ok && (ready.health?.(await response.json() as Record<string, any>) ?? true);
      if (healthy && (!ready.output || ready.output.test(output))) return { url, child, exited, output: () => output };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server process did not start:\n${output}`);
}
