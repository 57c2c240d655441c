// The request budget toward the legacy service: every attempt (first tries,
// retries, breaker probes) takes a permit here before it is sent.
//
// The guarantee, measured at the legacy side: in ANY interval of `windowMs`
// (1 s), at most `maxRps` of our requests arrive, and at most `maxConcurrency`
// are in flight at once, whatever the network delays are.
//
// Why not a token bucket or a sliding window over send times: a request sent at
// t arrives somewhere in [t, t + network delay], and delays vary, so requests
// sent more than a second apart can still arrive less than a second apart (a
// slow first request, a fast twenty-first). What we do know is that a request
// reached the service by the time its response starts (or, for a timeout or a
// network error, by the time we destroy the socket: nothing is sent after). So
// each request occupies the window from the moment it is granted until one
// window after that "arrival bound". A permit is granted at `now` only if
//
//     (granted requests without a bound yet) + (bounds later than now - windowMs) < maxRps
//
// Proof of the ceiling: take any arrivals inside one window [t, t + W) and the
// last granted of those requests, k. Every other one was granted before k and
// its bound is at or after its arrival, >= t > grant(k) - W, so at k's grant it
// was counted; there were at most maxRps - 1, plus k. The rule is also the
// loosest one with that guarantee: at a grant that breaks it, maxRps earlier
// requests plus the new one could all arrive within one window.
//
// Cost: with a response latency L, a lone stream gets maxRps × W / (W + L)
// requests per window, a little under maxRps; that is the price of a ceiling
// that holds at the server rather than at our end.
//
// Waiting requests form two FIFO queues: 'interactive' (client-driven writes,
// the read-back after a write) always goes before 'background' (the sync
// crawl), and both spend the same budget. `pauseUntil` (a Retry-After) stops
// every grant until then.
import { type Clock, systemClock } from './clock.ts';

export type Priority = 'interactive' | 'background';

export interface RequestBudgetOptions {
  maxRps: number;
  maxConcurrency: number;
  /** Length of the window the ceiling holds in; 1000 for "per second". */
  windowMs?: number;
  clock?: Clock;
}

/** One attempt's right to be sent. Calling any method twice is harmless. */
export interface Permit {
  /** The request has certainly reached the service (its response started): fixes its arrival bound. */
  arrived(): void;
  /** The attempt is over (answered, timed out, failed): frees its concurrency slot; the bound is now at the latest. */
  release(): void;
  /** The request was never sent (the breaker said no): gives the rate and concurrency slots back. */
  cancel(): void;
}

export interface BudgetSnapshot {
  inFlight: number;
  queued: Record<Priority, number>;
  /** Requests counted in the current window (in flight or arrived within the last windowMs). */
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
  private readonly clock: Clock;
  private readonly queues: Record<Priority, Waiter[]> = { interactive: [], background: [] };
  /** Granted and not yet released or cancelled. */
  private inFlight = 0;
  /** Granted, no arrival bound yet: counts in every window from its grant on. */
  private unbounded = 0;
  /** Arrival bounds within the last window, ascending (they are recorded at `now`). */
  private readonly bounds: number[] = [];
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
      inWindow: this.unbounded + this.bounds.length,
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

  private prune(now: number): void {
    let old = 0;
    while (old < this.bounds.length && this.bounds[old]! <= now - this.windowMs) old++;
    if (old > 0) this.bounds.splice(0, old);
  }

  /** 0 if a permit can be granted now; else how long until it might (Infinity: until a permit changes state). */
  private waitMs(now: number): number {
    if (this.inFlight >= this.maxConcurrency) return Infinity;
    let at = this.pausedUntilMs > now ? this.pausedUntilMs : now;
    const used = this.unbounded + this.bounds.length;
    if (used >= this.maxRps) {
      // The oldest bounds have to leave the window until one slot is free.
      const leaving = used - this.maxRps + 1;
      if (leaving > this.bounds.length) return Infinity;
      at = Math.max(at, this.bounds[leaving - 1]! + this.windowMs);
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
    this.unbounded++;
    let bounded = false;
    let done = false;
    const arrived = () => {
      if (bounded || done) return;
      bounded = true;
      this.unbounded--;
      this.bounds.push(this.clock.now());
      this.pump();
    };
    return {
      arrived,
      release: () => {
        arrived();
        if (done) return;
        done = true;
        this.inFlight--;
        this.pump();
      },
      cancel: () => {
        if (done) return;
        done = true;
        if (!bounded) this.unbounded--;
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
