// The real server as a separate process (`node src/main.ts`), as it runs in
// production: for tests of what only a process can show (signals, exit codes,
// several processes sharing one cache, cluster workers). Started by
// spawnServer (bench/lib/server-process.ts), as the benchmarks start it.
import { type SpawnedServer, spawnServer } from '../../bench/lib/server-process.ts';

/** The admin token every process is started with (unless `env` sets its own): in production, /healthz details need it. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Headers that show a probe the details. */
export const ADMIN_HEADERS = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

export type ApiProcess = SpawnedServer;

export interface Readiness {
  /** Accepts the /healthz body. */
  health?: (health: Record<string, any>) => boolean;
  /** Must appear in the output too (e.g. the cluster primary's "all 2 workers listening"). */
  output?: RegExp;
  /** Must hold too (e.g. every cluster worker has logged that it listens, seen through `onStdout`). */
  condition?: () => boolean;
}

export interface ApiProcessOptions extends Readiness {
  /** Every chunk the process prints on stdout, from the first. */
  onStdout?: (chunk: string) => void;
  /** stderr shown with the test's own instead of captured in output() (default). */
  stderr?: 'capture' | 'inherit';
}

/**
 * Starts the server on a free port with `env` on top of this environment
 * (production, warnings only, TEST_ADMIN_TOKEN), and waits until /healthz answers and the
 * readiness conditions hold.
 */
export function startApiProcess(env: Record<string, string>, ready: ApiProcessOptions = {}): Promise<ApiProcess> {
  return spawnServer({
    launch: (port) => ({
      script: 'src/main.ts',
      env: { NODE_ENV: 'production', LOG_LEVEL: 'warn', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env, PORT: String(port), HOST: '127.0.0.1' },
    }),
    probe: async (server) => {
      try {
        // fetch: its kept-alive connection stays open after the probe (test/faults/connections.test.ts allows for it).
        const response = await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS });
        const healthy = response.ok && (ready.health?.(await response.json() as Record<string, any>) ?? true);
        return healthy && (!ready.output || ready.output.test(server.output())) && (ready.condition?.() ?? true) ? 'ready' : 'waiting';
      } catch {
        return 'waiting'; // not up yet
      }
    },
    intervalMs: 100,
    // A failure bound, not a wait: cluster workers compiling TypeScript on a loaded two-core host take tens of seconds.
    timeoutMs: 90_000,
    stdout: 'capture',
    stderr: ready.stderr ?? 'capture',
    onStdout: ready.onStdout,
    failure: (server) => new Error(`server process did not start:\n${server.output()}`),
  });
}
