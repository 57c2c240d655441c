// The legacy simulator (src/legacy-sim/, docs/legacy-simulator.md) as a
// process of its own, as the published service is one: `node
// src/legacy-sim/cli.ts` on a free port, driven through its admin endpoints
// (/__sim/...), which are never queued, delayed or counted.
import { BenchError } from './bench-error.ts';
import { freshGet } from './fresh-get.ts';
import { type SpawnedServer, spawnServer } from './server-process.ts';

export interface SimStats {
  received: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  maxConcurrent: number;
  inFlight: number;
  maxInFlight: number;
}

export interface LegacySimProcess {
  url: string;
  server: SpawnedServer;
  /** POST /__sim/faults {overheadMs}. */
  setOverhead(ms: number): Promise<void>;
  /** POST /__sim/faults with these settings. */
  setFaults(faults: { overheadMs?: number; perItemMs?: number }): Promise<void>;
  /** GET /__sim/requests: the legacy requests the simulator still keeps, oldest first. */
  requests(): Promise<{ seq: number; method: string; url: string; receivedAt: string; ms?: number }[]>;
  stats(): Promise<SimStats>;
  resetStats(): Promise<void>;
  stop(): Promise<void>;
}

async function admin(url: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new BenchError(`legacy simulator: ${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

export async function startLegacySimProcess(options: { products: number; seed: number; overheadMs: number; requestLogSize?: number }): Promise<LegacySimProcess> {
  const server = await spawnServer({
    launch: (port) => ({
      script: 'src/legacy-sim/cli.ts',
      args: ['--port', String(port), '--products', String(options.products), '--seed', String(options.seed), '--overhead-ms', String(options.overheadMs),
        ...(options.requestLogSize === undefined ? [] : ['--request-log-size', String(options.requestLogSize)])],
      env: {},
    }),
    // Ours when its admin config shows the catalogue asked for.
    probe: async (s) => {
      try {
        const answer = await freshGet(`${s.url}/__sim/config`);
        if (answer.status !== 200) return 'other';
        const config = JSON.parse(answer.body) as { products?: number; seed?: number };
        return config.products === options.products && config.seed === options.seed ? 'ready' : 'other';
      } catch {
        return 'waiting';
      }
    },
    intervalMs: 100,
    timeoutMs: 30_000,
    portAttempts: 3,
    stdout: 'capture',
    stderr: 'capture',
    failure: (s, probe) => new BenchError(`the legacy simulator did not start on port ${s.port} (${probe === 'other' ? 'another program answers there' : `exit code ${s.child.exitCode}`}): ${s.output().trim()}`),
  });
  const url = server.url;
  return {
    url,
    server,
    setOverhead: async (ms) => { await admin(url, 'POST', '/__sim/faults', { overheadMs: ms }); },
    setFaults: async (faults) => { await admin(url, 'POST', '/__sim/faults', faults); },
    requests: async () => (await admin(url, 'GET', '/__sim/requests')) as Awaited<ReturnType<LegacySimProcess['requests']>>,
    stats: async () => (await admin(url, 'GET', '/__sim/stats')) as SimStats,
    resetStats: async () => { await admin(url, 'POST', '/__sim/reset-stats'); },
    stop: () => server.stop(),
  };
}
