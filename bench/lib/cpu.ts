// CPU time of processes, from Linux's /proc/<pid>/stat (utime + stime, in
// clock ticks): what npm run bench:capacity charges to each request.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds `pid` has used (user + system); 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name start at field 3 (state); utime is field 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}


/**
 * The CPU the Postgres backends of one application (application_name) use
 * over a measurement: the backends are listed and their CPU read every
 * 200 ms, since a pool may close connections and open new ones meanwhile
 * (a backend that ends counts up to its last reading; one that starts, from
 * its first).
 */
export class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();
  private readonly list: () => Promise<number[]>;

  constructor(list: () => Promise<number[]>) {
    this.list = list;
  }

  private async sample(): Promise<void> {
    for (const pid of await this.list()) {
      const seconds = cpuSeconds(pid);
      if (seconds === 0) continue;
      if (!this.first.has(pid)) this.first.set(pid, seconds);
      this.last.set(pid, seconds);
    }
  }

  async start(): Promise<void> {
    await this.sample();
    this.timer = setInterval(() => { this.sampling = this.sampling.then(() => this.sample()).catch(() => {}); }, 200);
  }

  /** CPU seconds used since start(). */
  async stop(): Promise<number> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sample();
    let total = 0;
    for (const [pid, last] of this.last) total += last - this.first.get(pid)!;
    return total;
  }
}
