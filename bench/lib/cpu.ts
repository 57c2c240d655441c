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

/** The CPU seconds of several processes together. */
export function totalCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}
