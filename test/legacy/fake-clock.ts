// A clock the test moves by hand: timers fire, in order, when advance() passes them.
import type { Clock } from '../../src/legacy/clock.ts';

export class FakeClock implements Clock {
  private time = 0;
  private wall = Date.UTC(2025, 0, 1);
  private readonly timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  now = () => this.time;
  wallNow = () => this.wall + this.time;

  setTimeout = (callback: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), callback });
    return id;
  };

  clearTimeout = (handle: unknown) => {
    this.timers.delete(handle as number);
  };

  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing due timers at their own times; settles promises after each. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
    }
    this.time = end;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
