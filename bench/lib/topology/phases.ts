// The fault timeline of the topology bench, and what each phase measured.
// Phases follow each other under one continuous load; each starts with its
// action (a fault or the repair of the previous one). Throughput and
// failures per phase come from nginx's access log (when each request was
// answered, with what status, by which API host), cache hits and replica
// reads from each API host's /healthz counters at the phase's edges, and the
// replica's lag from the primary's pg_stat_replication, sampled every 250 ms.
import { queryOnce } from '../../../src/db/pool/query-once.ts';
import { ADMIN_HEADERS } from '../admin-token.ts';
import type { AccessLogEntry } from '../nginx.ts';
import { API_HOSTS, type ApiHost, type Topology } from './topology.ts';

export const REPLICA_DELAY_MS = 50;

export interface Phase {
  name: string;
  action: (topology: Topology) => Promise<void> | void;
}

export const PHASES: readonly Phase[] = [
  { name: 'steady', action: () => {} },
  { name: 'api3 killed', action: (t) => t.killApiHost('api3') },
  { name: 'api3 restarted', action: (t) => t.startApiHost('api3') },
  { name: 'api2 cut from Redis', action: (t) => t.cutFromRedis('api2') },
  { name: 'api2 reconnected', action: (t) => t.reconnectToRedis('api2') },
  { name: `replica +${REPLICA_DELAY_MS} ms`, action: (t) => t.delayReplica(REPLICA_DELAY_MS) },
  { name: 'replica restored', action: (t) => t.delayReplica(0) },
];

/** Counters of one API host's /healthz (zero when it does not answer). */
interface HostCounters { hits: number; misses: number; replica: number; primary: number; fallbacks: number }

const ZERO: HostCounters = { hits: 0, misses: 0, replica: 0, primary: 0, fallbacks: 0 };

async function hostCounters(topology: Topology, name: ApiHost): Promise<HostCounters> {
  try {
    const response = await fetch(`http://${topology.host(name).address}:4000/healthz`, { headers: ADMIN_HEADERS, signal: AbortSignal.timeout(1_000) });
    const health = await response.json() as { cache?: { hits: number; misses: number }; replicas?: { reads: { replica: number; primary: number; fallbacks: number } } };
    return { hits: health.cache?.hits ?? 0, misses: health.cache?.misses ?? 0, ...(health.replicas?.reads ?? { replica: 0, primary: 0, fallbacks: 0 }) };
  } catch {
    return ZERO;
  }
}

async function allCounters(topology: Topology): Promise<Map<ApiHost, HostCounters>> {
  return new Map(await Promise.all(API_HOSTS.map(async (name) => [name, await hostCounters(topology, name)] as const)));
}

/** What happened between two samples of every host: a host restarted in between counts from zero. */
function growth(before: Map<ApiHost, HostCounters>, after: Map<ApiHost, HostCounters>): HostCounters {
  const sum = { ...ZERO };
  for (const name of API_HOSTS) {
    const a = before.get(name) ?? ZERO;
    const b = after.get(name) ?? ZERO;
    const restarted = b.hits + b.misses < a.hits + a.misses || b.primary + b.replica < a.primary + a.replica;
    for (const key of Object.keys(sum) as (keyof HostCounters)[]) sum[key] += restarted ? b[key] : b[key] - a[key];
  }
  return sum;
}

export interface PhaseWindow {
  name: string;
  /** Seconds since the epoch, as nginx logs them. */
  start: number;
  end: number;
  /** How long the action took (a restart, most of all). */
  actionMs: number;
  counters: HostCounters;
  /** Highest replay lag the primary reported in the phase (ms), and the most bytes of WAL the replica was behind. */
  maxReplayLagMs: number;
  maxBehindBytes: number;
}

/** Runs every phase for `seconds`, one after another, and returns their windows. */
export async function runPhases(topology: Topology, seconds: number, log: (message: string) => void): Promise<PhaseWindow[]> {
  const windows: PhaseWindow[] = [];
  let lag = { ms: 0, bytes: 0 };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        const [row] = await queryOnce<{ ms: number | null; bytes: string | null }>(topology.primaryUrl,
          `SELECT (extract(epoch FROM replay_lag) * 1000)::float8 AS ms, pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::text AS bytes FROM pg_stat_replication`);
        lag = { ms: Math.max(lag.ms, row?.ms ?? 0), bytes: Math.max(lag.bytes, Number(row?.bytes ?? 0)) };
      } catch { /* the primary is busy or restarting: the next sample */ }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  try {
    let before = await allCounters(topology);
    for (const phase of PHASES) {
      const start = Date.now();
      lag = { ms: 0, bytes: 0 };
      await phase.action(topology);
      const actionMs = Date.now() - start;
      log(`${new Date().toISOString().slice(11, 19)} ${phase.name}${actionMs > 100 ? ` (took ${(actionMs / 1000).toFixed(1)} s)` : ''}`);
      const rest = start + seconds * 1000 - Date.now();
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
      const after = await allCounters(topology);
      windows.push({ name: phase.name, start: start / 1000, end: Date.now() / 1000, actionMs, counters: growth(before, after), maxReplayLagMs: lag.ms, maxBehindBytes: lag.bytes });
      before = after;
    }
  } finally {
    sampling = false;
    await sampler;
  }
  return windows;
}

export interface PhaseStats {
  name: string;
  seconds: number;
  requests: number;
  rps: number;
  /** Answered 5xx by nginx (every upstream tried failed), per nginx's log. */
  failed: number;
  /** Requests answered by each API host (the last upstream nginx tried). */
  perHost: Record<string, number>;
  /** Requests nginx retried on another host after the first failed. */
  retried: number;
  cacheHitRatio: number | null;
  /** Database reads answered by the replica, the primary, and replica failures retried on the primary. */
  reads: { replica: number; primary: number; fallbacks: number };
  maxReplayLagMs: number;
  maxBehindBytes: number;
}

/** Each window's figures, from nginx's access log. `hostOf` names an upstream address's host. */
export function phaseStats(windows: readonly PhaseWindow[], log: readonly AccessLogEntry[], hostOf: (upstream: string) => string): PhaseStats[] {
  return windows.map((window) => {
    const entries = log.filter((e) => e.time >= window.start && e.time < window.end && e.uri !== '/healthz');
    const perHost: Record<string, number> = {};
    for (const entry of entries) {
      const last = entry.upstreams.at(-1);
      if (last) perHost[hostOf(last)] = (perHost[hostOf(last)] ?? 0) + 1;
    }
    const seconds = window.end - window.start;
    const { hits, misses, replica, primary, fallbacks } = window.counters;
    return {
      name: window.name, seconds, requests: entries.length, rps: entries.length / seconds,
      failed: entries.filter((e) => e.status >= 500).length,
      perHost, retried: entries.filter((e) => e.upstreams.length > 1).length,
      cacheHitRatio: hits + misses > 0 ? hits / (hits + misses) : null,
      reads: { replica, primary, fallbacks },
      maxReplayLagMs: window.maxReplayLagMs, maxBehindBytes: window.maxBehindBytes,
    };
  });
}

/** The per-phase table the bench prints. */
export function phaseTable(stats: readonly PhaseStats[]): string {
  const header = ['phase', 's', 'requests', 'req/s', 'failed', 'retried', ...API_HOSTS, 'cache hits', 'replica reads', 'primary reads', 'max lag'];
  const rows = stats.map((s) => [
    s.name, s.seconds.toFixed(1), s.requests.toLocaleString('en-US'), s.rps.toFixed(0), String(s.failed), String(s.retried),
    ...API_HOSTS.map((name) => (s.perHost[name] ?? 0).toLocaleString('en-US')),
    s.cacheHitRatio === null ? '-' : `${(s.cacheHitRatio * 100).toFixed(1)}%`,
    s.reads.replica.toLocaleString('en-US'), s.reads.primary.toLocaleString('en-US'), `${s.maxReplayLagMs.toFixed(1)} ms`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}
