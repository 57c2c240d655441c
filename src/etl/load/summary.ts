// The per-file table printed at the end of a load.
import type { CpuSeconds } from './cpu-meter.ts';
import type { LoadSummary } from './load.ts';

/** CPU seconds by phase, loader + database backends (the database's only for a server on this machine). */
function cpuLine(cpu: LoadSummary['cpu']): string {
  const phase = (c: CpuSeconds) => (c.database === undefined ? c.loader.toFixed(1) : `${c.loader.toFixed(1)} + ${c.database.toFixed(1)}`);
  const total = cpu.total.loader + (cpu.total.database ?? 0);
  return `CPU seconds, ${cpu.total.database === undefined ? 'loader (the server is not on this machine)' : 'loader + database backends'}: `
    + `files ${phase(cpu.files)}, keys ${phase(cpu.keys)}, builds ${phase(cpu.build)}, finish ${phase(cpu.finish)}, swap ${phase(cpu.swap)}: `
    + `total ${total.toFixed(1)} (${(total / 2).toFixed(1)} s of two cores)`;
}

/**
 * Cores per phase, averaged over its wall time: busy with the load (loader
 * and backends), wanted by it (threads and backends ready to run: what it
 * would keep busy on an idle host), and busy on the whole host. Wanted below
 * the host's cores: the phase leaves a core idle; busy below wanted: it
 * shared the cores with other work.
 */
function coresLine(summary: LoadSummary): string {
  const phases = ['files', 'keys', 'build', 'finish', 'swap'] as const;
  const cores = (phase: (typeof phases)[number]) => {
    const c = summary.cpu[phase];
    const wall = Math.max(summary.seconds[phase], 0.001);
    const figures = [(c.loader + (c.database ?? 0)) / wall, c.wanted, c.host].map((v, i) => (v === undefined ? '-' : (i === 0 ? v : v / wall).toFixed(2)));
    return `${phase === 'build' ? 'builds' : phase} ${figures.join('/')}`;
  };
  return `cores, busy with the load/wanted by it/busy on the host: ${phases.map(cores).join(', ')}`;
}

export function formatSummary(summary: LoadSummary): string {
  const header = ['file', 'read', 'loaded', 'rejected', 'repaired', 'seconds', 'rows/s'];
  const rows = summary.files.map((f) => [
    f.file, f.read, f.loaded, f.rejected, f.repaired, f.seconds.toFixed(1), Math.round(f.read / Math.max(f.seconds, 0.001)),
  ].map((v) => (typeof v === 'number' ? v.toLocaleString('en-US') : v)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
  const s = summary.seconds;
  const rejected = summary.files.reduce((n, f) => n + f.rejected, 0);
  return [
    line(header),
    ...rows.map(line),
    `files ${s.files.toFixed(1)} s, keys ${s.keys.toFixed(1)} s, builds ${s.build.toFixed(1)} s, finish ${s.finish.toFixed(1)} s, swap ${s.swap.toFixed(2)} s: total ${s.total.toFixed(1)} s; loader peak memory ${summary.peakMemoryMb} MB`,
    `builds, busy seconds over the connections: ${Object.entries(s.busy).map(([kind, seconds]) => `${kind} ${seconds.toFixed(1)}`).join(', ')}`,
    ...(Object.keys(summary.buildCpu).length > 0 ? [`builds, database CPU seconds: ${Object.entries(summary.buildCpu).map(([kind, seconds]) => `${kind} ${seconds.toFixed(1)}`).join(', ')}`] : []),
    cpuLine(summary.cpu),
    coresLine(summary),
    rejected > 0
      ? `${rejected.toLocaleString('en-US')} rejected rows kept in table load_rejects: SELECT file, line, reason, raw FROM load_rejects WHERE run_id = ${summary.runId} ORDER BY file, line;`
      : 'no rows rejected',
  ].join('\n');
}
