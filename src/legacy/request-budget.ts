// The request budget toward the legacy service: every attempt (first tries,
// retries, breaker probes) takes a permit here before it is sent.
//
// The guarantee: at most `maxRps` of our requests START (are handed to the
// network) in any window of `windowMs` (1 s) plus `slackMs`, and at most
// `maxConcurrency` are in flight at once. The rate counts arrivals, as the
// legacy service counts them, not completions: a service that takes 0.5 s per
// answer, one at a time, gets 2 requests/s from LEGACY_MAX_RPS=2, not one
// request a second after the previous answer.
//
// A request reaches the service one network delay after it starts. Delays
// vary (a request that waits for its connection, an event loop that reads it
// late), so two starts exactly a window apart can arrive a little less than a
// window apart; `slackMs` (default SLACK_MS) absorbs that: as long as delays
// vary by less than it, the service sees at most maxRps arrivals in any
// window. The slack costs at most slackMs / (windowMs + slackMs) of the rate
// (4.8% at the defaults), and nothing when the service's own answer time is
// what limits the rate (a serial service at 0.5 s per answer and maxRps 2).
//
// A permit is granted at `now` only if
//
//     (granted, not started yet) + (starts later than now - windowMs - slackMs) < maxRps
//
// Proof of the ceiling at our end: take any starts inside one window
// [t, t + W + S) and the last granted of those requests, k. Every other one
// was granted before k and started at or after t > grant(k) - W - S, so at
// k's grant it was counted (started, or granted and not started yet); there
// were at most maxRps - 1 of them, plus k. A request counts from its grant
// until it starts as if it started at every moment (a slow connect cannot
// squeeze a burst in behind it).
//
// Waiting requests form two FIFO queues: 'interactive' (client-driven writes,
// the read-back after a write) always goes before 'background' (the sync
// crawl), and both spend the same budget. `pauseUntil` (a Retry-After) stops
// every grant until then.
import { type Clock, systemClock } from './clock.ts';

export type Priority = 'interactive' | 'background';

/** Default slack: how much later than its start a request may reach the service, relative to the others, with the ceiling still holding there. */
export const SLACK_MS = 50;

export interface RequestBudgetOptions {
  maxRps: number;
  maxConcurrency: number;
  /** Length of the window the ceiling holds in; 1000 for "per second". */
  windowMs?: number;
  /** Added to the window at our end (SLACK_MS by default): see above. */
  slackMs?: number;
  clock?: Clock;
}

/** One attempt's right to be sent. Calling any method twice is harmless. */
export interface Permit {
  /** The request has been handed to the network (written to a connected socket): it counts in the windows from now on. */
  sent(): void;
  /** The attempt is over (answered, timed out, failed): frees its concurrency slot; if it never said it was sent, it counts as sent now. */
  release(): void;
  /** The request was never sent (the breaker said no): gives the rate and concurrency slots back. */
  cancel(): void;
}

export interface BudgetSnapshot {
  inFlight: number;
  queued: Record<Priority, number>;
  /** Requests counted in the current window (granted and not started yet, or started within the last windowMs + slackMs). */
  inWindow: number;
  /** Monotonic time before which nothing is sent (a Retry-After), or undefined. */
  pausedUntil: number | undefined;
}

export class BudgetClosedError extends Error {
  override readonly name = 'BudgetClosedError';
}

interface Waiter {
  resolve: (permit: Permit) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class RequestBudget {
  readonly maxRps: number;
  readonly maxConcurrency: number;
  readonly windowMs: number;
  readonly slackMs: number;
  private readonly clock: Clock;
  private readonly queues: Record<Priority, Waiter[]> = { interactive: [], background: [] };
  /** Granted and not yet released or cancelled. */
  private inFlight = 0;
  /** Granted, not started yet: counts in every window from its grant on. */
  private unstarted = 0;
  /** Start times within the last windowMs + slackMs, ascending (they are recorded at `now`). */
  private readonly starts: number[] = [];
  private pausedUntilMs = -Infinity;
  private timer: unknown = undefined;
  private timerAt = Infinity;
  private closedWith: Error | undefined;

  constructor(options: RequestBudgetOptions) {
    if (!(Number.isInteger(options.maxRps) && options.maxRps >= 1)) throw new RangeError(`maxRps must be a positive integer, got ${options.maxRps}`);
    if (!(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)) {
      throw new RangeError(`maxConcurrency must be a positive integer, got ${options.maxConcurrency}`);
    }
    this.maxRps = options.maxRps;
    this.maxConcurrency = options.maxConcurrency;
    this.windowMs = options.windowMs ?? 1000;
    this.slackMs = options.slackMs ?? SLACK_MS;
    if (!(this.windowMs > 0 && this.slackMs >= 0)) throw new RangeError(`windowMs must be positive and slackMs not negative, got ${this.windowMs} and ${this.slackMs}`);
    this.clock = options.clock ?? systemClock;
  }

  /** Waits for a permit; interactive waiters are served before background ones. */
  acquire(priority: Priority = 'background', signal?: AbortSignal): Promise<Permit> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Permit>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const queue = this.queues[priority];
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queues[priority].push(waiter);
      this.pump();
    });
  }

  /** No permit is granted before monotonic time `until` (only ever extends a pause). */
  pauseUntil(until: number): void {
    if (until <= this.pausedUntilMs) return;
    this.pausedUntilMs = until;
    this.pump();
  }

  snapshot(): BudgetSnapshot {
    const now = this.clock.now();
    this.prune(now);
    return {
      inFlight: this.inFlight,
      queued: { interactive: this.queues.interactive.length, background: this.queues.background.length },
      inWindow: this.unstarted + this.starts.length,
      pausedUntil: this.pausedUntilMs > now ? this.pausedUntilMs : undefined,
    };
  }

  /** Rejects every waiter and every later acquire; permits already granted still work. */
  close(reason: Error = new BudgetClosedError('the legacy request budget is closed')): void {
    this.closedWith ??= reason;
    this.clearTimer();
    for (const queue of [this.queues.interactive, this.queues.background]) {
      for (const waiter of queue.splice(0)) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.reject(this.closedWith);
      }
    }
  }

  /** How long a start counts: the window and the slack. */
  private get spanMs(): number {
    return this.windowMs + this.slackMs;
  }

  private prune(now: number): void {
    let old = 0;
    while (old < this.starts.length && this.starts[old]! <= now - this.spanMs) old++;
    if (old > 0) this.starts.splice(0, old);
  }

  /** 0 if a permit can be granted now; else how long until it might (Infinity: until a permit changes state). */
  private waitMs(now: number): number {
    if (this.inFlight >= this.maxConcurrency) return Infinity;
    let at = this.pausedUntilMs > now ? this.pausedUntilMs : now;
    const used = this.unstarted + this.starts.length;
    if (used >= this.maxRps) {
      // The oldest starts have to leave the window until one slot is free.
      const leaving = used - this.maxRps + 1;
      if (leaving > this.starts.length) return Infinity;
      at = Math.max(at, this.starts[leaving - 1]! + this.spanMs);
    }
    return at - now;
  }

  private pump(): void {
    if (this.closedWith) return;
    for (;;) {
      const priority: Priority | undefined = this.queues.interactive.length > 0 ? 'interactive' : this.queues.background.length > 0 ? 'background' : undefined;
      if (!priority) return this.clearTimer();
      const now = this.clock.now();
      this.prune(now);
      const wait = this.waitMs(now);
      if (wait > 0) {
        // Timers may fire a little early: pump() checks again and re-arms.
        if (Number.isFinite(wait)) this.wakeAt(now + wait, wait);
        else this.clearTimer();
        return;
      }
      const waiter = this.queues[priority].shift()!;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.grant());
    }
  }

  private grant(): Permit {
    this.inFlight++;
    this.unstarted++;
    let started = false;
    let done = false;
    const sent = () => {
      if (started || done) return;
      started = true;
      this.unstarted--;
      this.starts.push(this.clock.now());
      this.pump();
    };
    return {
      sent,
      release: () => {
        sent();
        if (done) return;
        done = true;
        this.inFlight--;
        this.pump();
      },
      cancel: () => {
        if (done) return;
        done = true;
        if (!started) this.unstarted--;
        this.inFlight--;
        this.pump();
      },
    };
  }

  private wakeAt(at: number, wait: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.ceil(wait));
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
