// CPU seconds a load spends, in the loader (its threads included) and in the
// Postgres backends of its connections, phase by phase: on a shared host the
// wall time of a phase moves with whatever else runs, its CPU much less, so
// the CPU says where the work is. The backends' CPU is read from
// /proc/<pid>/stat, so only for a server on this machine (else undefined).
import fs from 'node:fs';
import os from 'node:os';
import type pg from 'pg';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
/** How often the threads and backends ready to run are counted. */
const SAMPLE_MS = 100;

export interface CpuSeconds {
  loader: number;
  /** Undefined when the server is not on this machine. */
  database?: number;
  /**
   * Busy CPU seconds of the whole host (every process, /proc/stat), on
   * Linux: beside the load's own, it says whether a phase left a core idle
   * (host busy below the cores) or shared them with other work.
   */
  host?: number;
  /**
   * Core-seconds the load wanted (sampled: its threads and backends ready to
   * run, at most the host's cores), on Linux: what it would keep busy on an
   * otherwise idle host, whatever else runs beside it.
   */
  wanted?: number;
}

/** Busy (not idle, not waiting for I/O) CPU seconds of the whole host since boot, on Linux. */
function hostSeconds(): number | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function loaderSeconds(): number {
  const usage = process.resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1e6;
}

/** utime + stime of a local Postgres process, or undefined if it is not one (gone, or another machine's pid). */
function processSeconds(pid: number): number | undefined {
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) return undefined;
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function isLocal(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === '' || host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.startsWith('/');
  } catch {
    return false;
  }
}

/** The state letter and utime + stime ticks of /proc/.../stat, or undefined (gone, or not a `comm` process). */
function processState(file: string, comm?: string): { state: string; ticks: number } | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const close = text.lastIndexOf(') ');
    if (comm !== undefined && text.slice(text.indexOf('(') + 1, close) !== comm) return undefined;
    const fields = text.slice(close + 2).split(' ');
    return { state: fields[0]!, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

export class CpuMeter {
  private readonly local: boolean;
  /** Backend pid -> its CPU seconds when first seen and when last read (a closed connection's work still counts). */
  private readonly backends = new Map<number, { base: number; last: number }>();
  private readonly started: number;
  private readonly hostStarted = hostSeconds();
  private readonly pids = new WeakMap<pg.ClientBase, number>();
  private wanted = 0;
  private sampler?: NodeJS.Timeout;

  constructor(databaseUrl: string) {
    this.local = isLocal(databaseUrl) && process.platform === 'linux';
    this.started = loaderSeconds();
    if (process.platform === 'linux') this.startSampling();
  }

  /**
   * Every SAMPLE_MS, the loader's threads in state R (running or ready) and
   * its backends likewise, at most the host's cores, times the time since the
   * last sample. The main thread, which takes the sample, counts with its CPU
   * share over the interval instead of its state (always R while sampling).
   */
  private startSampling(): void {
    const cores = os.availableParallelism();
    const main = `/proc/self/task/${process.pid}/stat`;
    let last = performance.now();
    let mainTicks = processState(main)?.ticks ?? 0;
    this.sampler = setInterval(() => {
      const now = performance.now();
      const seconds = (now - last) / 1000;
      last = now;
      let ready = 0;
      try {
        for (const tid of fs.readdirSync('/proc/self/task')) {
          if (Number(tid) !== process.pid && processState(`/proc/self/task/${tid}/stat`)?.state === 'R') ready++;
        }
      } catch {
        return;
      }
      const ticks = processState(main)?.ticks ?? mainTicks;
      ready += Math.min(1, (ticks - mainTicks) / TICKS_PER_SECOND / Math.max(seconds, 0.001));
      mainTicks = ticks;
      if (this.local) for (const pid of this.backends.keys()) if (processState(`/proc/${pid}/stat`, 'postgres')?.state === 'R') ready++;
      this.wanted += Math.min(ready, cores) * seconds;
    }, SAMPLE_MS).unref();
  }

  /** Stops the sampling (at the end of the load). */
  stop(): void {
    clearInterval(this.sampler);
  }

  /** Follows a connection's backend from now on (its CPU before, the connection's setup, is not the load's). */
  async watch(client: pg.ClientBase): Promise<void> {
    if (!this.local) return;
    const { rows: [row] } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const seconds = row ? processSeconds(row.pid) : undefined;
    if (row && seconds !== undefined) this.pids.set(client, row.pid);
    if (row && seconds !== undefined && !this.backends.has(row.pid)) this.backends.set(row.pid, { base: seconds, last: seconds });
  }

  /** The CPU seconds of a watched connection's backend so far (undefined if not known). */
  backendSeconds(client: pg.ClientBase): number | undefined {
    const pid = this.pids.get(client);
    return pid === undefined ? undefined : processSeconds(pid);
  }

  /** CPU seconds since the meter started. */
  read(): CpuSeconds {
    const loader = loaderSeconds() - this.started;
    const now = hostSeconds();
    const host = now === undefined || this.hostStarted === undefined ? undefined : now - this.hostStarted;
    const wanted = this.sampler === undefined ? undefined : this.wanted;
    if (!this.local || this.backends.size === 0) return { loader, host, wanted };
    let database = 0;
    for (const [pid, backend] of this.backends) {
      backend.last = processSeconds(pid) ?? backend.last;
      database += backend.last - backend.base;
    }
    return { loader, database, host, wanted };
  }
}
