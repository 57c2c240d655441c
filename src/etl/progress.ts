// Progress for long-running commands: redrawn bars on a terminal, plain
// periodic lines otherwise (CI logs, pipes), so logs stay readable.

export interface ProgressTask {
  update(done: number): void;
  finish(message?: string): void;
}

const BAR_WIDTH = 28;
const PLAIN_INTERVAL_MS = 5_000;
const TTY_INTERVAL_MS = 100;

function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

interface TaskState { label: string; total: number; done: number; started: number; finished?: string }

export class Progress {
  private readonly tasks: TaskState[] = [];
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private drawnLines = 0;
  private lastDraw = 0;

  // A terminal gets a redrawn table; anything else (a log file, CI) a line every few seconds.
  constructor(stream: NodeJS.WriteStream = process.stderr, tty = Boolean(stream.isTTY)) {
    this.stream = stream;
    this.tty = tty;
  }

  task(label: string, total: number): ProgressTask {
    const state: TaskState = { label, total, done: 0, started: Date.now() };
    this.tasks.push(state);
    let lastPlain = Date.now();
    return {
      update: (done) => {
        state.done = done;
        const now = Date.now();
        if (this.tty) {
          if (now - this.lastDraw >= TTY_INTERVAL_MS) this.draw();
        } else if (now - lastPlain >= PLAIN_INTERVAL_MS) {
          lastPlain = now;
          this.stream.write(`${this.describe(state)}\n`);
        }
      },
      finish: (message) => {
        state.done = Math.max(state.done, state.total);
        state.finished = message ?? `${label}: done, ${formatCount(state.done)} in ${((Date.now() - state.started) / 1000).toFixed(1)} s`;
        if (this.tty) this.draw();
        else this.stream.write(`${state.finished}\n`);
      },
    };
  }

  private describe(state: TaskState): string {
    const fraction = state.total > 0 ? Math.min(1, state.done / state.total) : 0;
    const seconds = (Date.now() - state.started) / 1000;
    const rate = seconds > 0 ? state.done / seconds : 0;
    return `${state.label}: ${(fraction * 100).toFixed(0).padStart(3)}% ${formatCount(state.done)}/${formatCount(state.total)} (${formatCount(Math.round(rate))}/s)`;
  }

  private draw(): void {
    this.lastDraw = Date.now();
    const lines = this.tasks.map((state) => {
      if (state.finished) return state.finished;
      const fraction = state.total > 0 ? Math.min(1, state.done / state.total) : 0;
      const filled = Math.round(fraction * BAR_WIDTH);
      return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${this.describe(state)}`;
    });
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
    this.stream.write(`${up}${lines.map((line) => `\x1b[2K${line}`).join('\n')}\n`);
    this.drawnLines = lines.length;
  }
}
