// CPU seconds a load spends, in the loader (its threads included) and in the
// Postgres backends of its connections, phase by phase: on a shared host the
// wall time of a phase moves with whatever else runs, its CPU much less, so
// the CPU says where the work is. The backends' CPU is read from
// /proc/<pid>/stat, so only for a server on this machine (else undefined).
import fs from 'node:fs';
import type pg from 'pg';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSeconds {
  loader: number;
  /** Undefined when the server is not on this machine. */
  database?: number;
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

export class CpuMeter {
  private readonly local: boolean;
  /** Backend pid -> its CPU seconds when first seen and when last read (a closed connection's work still counts). */
  private readonly backends = new Map<number, { base: number; last: number }>();
  private readonly started: number;
  private readonly pids = new WeakMap<pg.ClientBase, number>();

  constructor(databaseUrl: string) {
    this.local = isLocal(databaseUrl) && process.platform === 'linux';
    this.started = loaderSeconds();
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
    if (!this.local || this.backends.size === 0) return { loader };
    let database = 0;
    for (const [pid, backend] of this.backends) {
      backend.last = processSeconds(pid) ?? backend.last;
      database += backend.last - backend.base;
    }
    return { loader, database };
  }
}
