// The per-file table printed at the end of a load.
import type { LoadSummary } from './load.ts';

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
    rejected > 0
      ? `${rejected.toLocaleString('en-US')} rejected rows kept in table load_rejects: SELECT file, line, reason, raw FROM load_rejects WHERE run_id = ${summary.runId} ORDER BY file, line;`
      : 'no rows rejected',
  ].join('\n');
}
