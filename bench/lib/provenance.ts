// What a results file must say about where its figures come from: the code
// (commit, and whether the tree had changes), the machine and how busy it
// was, the date, the data measured and the command that measured it. The
// README's performance table is rendered from such files
// (scripts/render-performance.ts), so every figure it shows can be traced and
// measured again.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/commands/run.ts';

export interface Provenance {
  /** The commit measured, and whether the working tree differed from it (outside docs/performance/). */
  commit: string;
  dirty: boolean;
  /** When the measurement started and ended (ISO 8601). */
  startedAt: string;
  endedAt?: string;
  /** The command, as an operator would type it again. */
  command: string;
  machine: { hostname: string; cores: number; cpu: string | undefined; memoryGiB: number; node: string; loadAverage: { start: number; end?: number } };
  /** The data measured: its size and shape, as the bench knows it. */
  data: Record<string, unknown>;
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Provenance of a measurement starting now, run as `npm run <script> -- <args>`. */
export function startProvenance(script: string, args: readonly string[], data: Record<string, unknown>): Provenance {
  const quoted = args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`));
  return {
    commit: git(['rev-parse', 'HEAD']) ?? 'unknown',
    // The published results themselves (docs/performance/) are not the code measured.
    dirty: (git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)docs/performance']) ?? '') !== '',
    startedAt: new Date().toISOString(),
    command: `npm run ${script}${quoted.length > 0 ? ` -- ${quoted.join(' ')}` : ''}`,
    machine: {
      hostname: os.hostname(), cores: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version, loadAverage: { start: round(os.loadavg()[0]!) },
    },
    data,
  };
}

/** The same, ended now. */
export function endProvenance(provenance: Provenance): Provenance {
  return { ...provenance, endedAt: new Date().toISOString(), machine: { ...provenance.machine, loadAverage: { ...provenance.machine.loadAverage, end: round(os.loadavg()[0]!) } } };
}

/** The folder of committed results the docs quote. */
export const PUBLISHED_RESULTS_DIR = path.join(import.meta.dirname, '..', '..', 'docs', 'performance');

/** `--save <name>`: a results document copied to docs/performance/<name>.json, to be committed. */
export function publish(name: string, document: unknown): string {
  const file = path.join(PUBLISHED_RESULTS_DIR, `${name}.json`);
  fs.mkdirSync(PUBLISHED_RESULTS_DIR, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}

/**
 * `--save <name>` of a bench that measures one setting per run (bench:flood,
 * bench:storm): docs/performance/<name>.json holds `entries`, one per setting;
 * `entry` replaces the one `sameSetting` matches and the others are kept.
 */
export function publishEntry<T extends object>(name: string, entry: T, sameSetting: (kept: T) => boolean): string {
  const file = path.join(PUBLISHED_RESULTS_DIR, `${name}.json`);
  const kept = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: T[] }).entries : [];
  return publish(name, { entries: [...kept.filter((other) => !sameSetting(other)), entry] });
}

/** `--save`'s value, checked: a file name of lower-case letters, digits and dashes (undefined: not saved). */
export function savedName(name: string | undefined): string | undefined {
  if (name === undefined || name === '') return undefined;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new UsageError(`--save must be a file name of lower-case letters, digits and dashes (got ${JSON.stringify(name)})`);
  return name;
}

const round = (n: number) => Math.round(n * 100) / 100;
