// Progress for long-running commands (the generator, the loader): on a
// terminal, one cli-progress bar per task under way (done of total and a
// rate), finished tasks printed above them as a line each; anywhere else (a
// log file, CI, a pipe), a plain line per task under way every few seconds,
// whether or not it moved (a single long statement still shows it is alive),
// and one when it finishes.
import cliProgress from 'cli-progress';

export interface ProgressTask {
  /** `done` in the task's unit; `rows`, for a task measured in bytes, the rows read so far. */
  update(done: number, rows?: number): void;
  finish(message?: string): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** Bars (a terminal) or plain lines; by default, whether the stream is a terminal. */
  tty?: boolean;
  /** How often a plain line is written per task under way (at most 10 s: what a log reader can wait). */
  intervalMs?: number;
}

/** Plain lines every 5 s: twice as often as the 10 s a log reader is promised. */
const PLAIN_INTERVAL_MS = 5_000;

function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

function formatAmount(n: number, unit: string): string {
  return unit === 'bytes' ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${formatCount(n)} ${unit}`;
}

interface TaskState {
  label: string;
  unit: string;
  total: number;
  done: number;
  rows?: number;
  started: number;
  finished: boolean;
  bar?: cliProgress.SingleBar;
}

export class Progress {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly tasks = new Set<TaskState>();
  private multibar?: cliProgress.MultiBar;
  private timer?: NodeJS.Timeout;
  private readonly intervalMs: number;

  constructor(options: ProgressOptions = {}) {
    this.stream = options.stream ?? process.stderr;
    this.tty = options.tty ?? Boolean(this.stream.isTTY);
    this.intervalMs = Math.min(options.intervalMs ?? PLAIN_INTERVAL_MS, 10_000);
  }

  /** A task of `total` units (`rows`, `bytes`, `products`, `builds`, ...). */
  task(label: string, total: number, unit = 'rows'): ProgressTask {
    const state: TaskState = { label, unit, total, done: 0, started: performance.now(), finished: false };
    this.tasks.add(state);
    if (this.tty) {
      this.multibar ??= new cliProgress.MultiBar({
        stream: this.stream, format: '{label} [{bar}] {percentage}% {amounts} ({rate}){rows}', barsize: 24, hideCursor: true,
        clearOnComplete: false, stopOnComplete: false, autopadding: true, fps: 5,
      }, cliProgress.Presets.shades_classic);
      state.bar = this.multibar.create(Math.max(total, 1), 0, this.payload(state));
    } else {
      this.timer ??= setInterval(() => this.writePlain(), this.intervalMs).unref();
    }
    return {
      update: (done, rows) => {
        state.done = done;
        if (rows !== undefined) state.rows = rows;
        state.bar?.update(Math.min(done, Math.max(state.total, 1)), this.payload(state));
      },
      finish: (message) => {
        if (state.finished) return;
        state.finished = true;
        state.done = Math.max(state.done, state.total);
        this.tasks.delete(state);
        const line = message ?? `${label}: done, ${formatAmount(state.done, unit)} in ${((performance.now() - state.started) / 1000).toFixed(1)} s (${this.rate(state).amount})`;
        if (state.bar && this.multibar) {
          this.multibar.remove(state.bar);
          this.multibar.log(`${line}\n`);
          if (this.tasks.size === 0) this.stopBars();
        } else {
          this.stream.write(`${line}\n`);
        }
      },
    };
  }

  /** A line of its own, above the bars on a terminal. */
  log(line: string): void {
    if (this.multibar) this.multibar.log(`${line}\n`);
    else this.stream.write(`${line}\n`);
  }

  /** Stops redrawing and the plain lines' timer (the tasks left are abandoned). */
  stop(): void {
    this.tasks.clear();
    this.stopBars();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private stopBars(): void {
    this.multibar?.stop();
    this.multibar = undefined;
  }

  private rate(state: TaskState): { amount: string; rows: string } {
    const seconds = Math.max((performance.now() - state.started) / 1000, 1e-3);
    return {
      amount: `${formatAmount(state.done / seconds, state.unit)}/s`,
      rows: state.rows === undefined ? '' : `, ${formatCount(state.rows)} rows (${formatCount(state.rows / seconds)} rows/s)`,
    };
  }

  private payload(state: TaskState): Record<string, string> {
    const rate = this.rate(state);
    return { label: state.label, amounts: `${formatAmount(state.done, state.unit)} of ${formatAmount(state.total, state.unit)}`, rate: rate.amount, rows: rate.rows };
  }

  private writePlain(): void {
    for (const state of this.tasks) {
      const rate = this.rate(state);
      const percent = state.total > 0 ? Math.min(100, (state.done / state.total) * 100) : 0;
      this.stream.write(`${state.label}: ${percent.toFixed(0)}% ${formatAmount(state.done, state.unit)} of ${formatAmount(state.total, state.unit)} (${rate.amount})${rate.rows}\n`);
    }
  }
}
