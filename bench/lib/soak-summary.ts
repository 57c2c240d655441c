// What a soak found, as bench:soak prints it and docs/performance.md shows it
// (scripts/render-performance.ts renders the lines from the saved result):
// one definition of the summary for both.
import type { Measurement } from './measurement.ts';

export interface SoakResult {
  scenario: string; rate: number; duration: string; warmup: string; cache: string; k6Exit: number | null;
  measured: Measurement;
  checks: { passes?: number; fails?: number };
  /** Resident memory in bytes right after the warm-up, at the end and at its peak; growth from the first to the second (0.059: 5.9%). */
  rss: { afterWarmup: number; atEnd: number; peak: number; growth: number };
  writes: { answered200: number; conditional: number; answered412: number };
  /** versionBefore: the highest product version before the soak (a bigint, as text). */
  finalCheck: { versionBefore: string; written: number; unwritten: number; mismatches: string[] };
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The summary lines: requests, memory, writes (when the scenario wrote), the final check. */
export function soakSummary(result: SoakResult): string[] {
  const { measured, checks, rss, writes, finalCheck } = result;
  const failed = Math.round(measured.errors * measured.requests);
  const lines = [
    `${measured.requests} requests (${measured.rps.toFixed(0)}/s), ${failed} failed, ${measured.dropped} dropped, checks ${checks.passes ?? 0}/${(checks.passes ?? 0) + (checks.fails ?? 0)}, `
      + `p50 ${measured.p50.toFixed(2)} ms, p95 ${measured.p95.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms`,
    `resident memory: ${mb(rss.afterWarmup)} after the ${result.warmup} warm-up, ${mb(rss.atEnd)} at the end (${(rss.growth * 100).toFixed(1)}%), peak ${mb(rss.peak)}`,
  ];
  if (writes.answered200 + writes.answered412 + writes.conditional > 0) {
    lines.push(`writes: ${writes.answered200 + writes.answered412} (${writes.conditional} conditional), ${writes.answered200} answered 200, ${writes.answered412} answered 412 (changed since read); ${finalCheck.written} products written`);
  }
  lines.push(`final check: ${finalCheck.written} written and ${finalCheck.unwritten} unwritten products read through the API, `
    + `${finalCheck.mismatches.length === 0 ? 'all equal to the database' : `${finalCheck.mismatches.length} differences from the database`}`);
  return lines;
}
