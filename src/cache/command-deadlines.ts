// A bound on every Redis command, at the cost of a push per command.
//
// ioredis's own commandTimeout arms a timer for each command and clears it
// when the reply comes: 11% of a REST cache hit's CPU (profiled under the
// hot-set bench, docs/performance.md). Every command of a
// client has the same bound, so commands expire in the order they were sent:
// one queue and one timer, due when the oldest pending command is, serve them
// all. Answered commands leave the queue when the timer next runs.
import type { Command } from 'ioredis';

/** What a command's bound needs of it (ioredis's Command). */
type Watched = Pick<Command, 'isResolved' | 'reject'>;

export class CommandDeadlines {
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private commands: Watched[] = [];
  private deadlines: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, now: () => number = () => performance.now()) {
    this.timeoutMs = timeoutMs;
    this.now = now;
  }

  /** Commands sent and not yet past their bound (answered ones included until the timer runs). */
  get watched(): number {
    return this.commands.length;
  }

  /** Fails `command` with "Command timed out" (as ioredis does) unless it is answered within the bound. */
  watch(command: Watched): void {
    this.commands.push(command);
    this.deadlines.push(this.now() + this.timeoutMs);
    if (this.timer === undefined) this.arm(this.timeoutMs);
  }

  private arm(delayMs: number): void {
    // A timer may fire a little early: +1 ms, so the oldest command is past its bound when it does.
    this.timer = setTimeout(() => this.sweep(), Math.max(0, delayMs) + 1);
    // A bound never keeps the process alive (nor does ioredis's).
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = this.now();
    let done = 0;
    while (done < this.commands.length) {
      const command = this.commands[done]!;
      if (!command.isResolved) {
        if (this.deadlines[done]! > now) break;
        command.reject(new Error('Command timed out'));
      }
      done++;
    }
    this.commands = this.commands.slice(done);
    this.deadlines = this.deadlines.slice(done);
    if (this.commands.length > 0) this.arm(this.deadlines[0]! - now);
  }
}
