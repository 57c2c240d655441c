// Expensive reads (every statement of src/catalog/browse/browse.ts: searches, facet
// counts, filtered and ordered browse pages) run at most `concurrency` at a
// time in a process; a few more wait their turn, each at most `maxWaitMs`,
// and past that the request is refused (429 with Retry-After). Each of them
// reads many rows to answer with few: unlimited, a storm of unique searches
// from a handful of clients held every pooled connection and both cores, and
// a product page next to it waited behind them. Keyed reads
// (product pages, REST routes: src/db/reads/coalesced-reads.ts) never pass
// here, so they keep the pool's other connections and the cores' spare time.
// A slot is taken before the pooled connection, so waiting reads hold none.

export interface ExpensiveReadLimits {
  /** Statements running at once, per process; 0: no limit. */
  concurrency: number;
  /** Statements waiting for a slot at most; one more is refused when its wait would have run out. */
  queue: number;
  /** Longest a statement waits for a slot; then it is refused. */
  maxWaitMs: number;
  /**
   * The share of its time a slot may be busy, in percent (100: no rest).
   * Below 100 a slot rests after each statement, in proportion to how long
   * the statement ran, before the next in line takes it.
   */
  busyPercent: number;
}

/** Why an expensive read was not run: the waiting line was full, or its wait ran out. */
export type RefusalReason = 'queue full' | 'waited too long';

/** An expensive read refused by the limit: 429 with Retry-After, naming the limit. */
export class ExpensiveReadRefused extends Error {
  readonly statusCode = 429;
  readonly reason: RefusalReason;
  readonly retryAfterSeconds: number;
  readonly limits: ExpensiveReadLimits;
  constructor(reason: RefusalReason, limits: ExpensiveReadLimits) {
    const retryAfterSeconds = Math.max(1, Math.ceil(limits.maxWaitMs / 1000));
    const why = reason === 'queue full'
      ? `${limits.queue} more already wait (EXPENSIVE_READS_QUEUE)`
      : `this one waited ${limits.maxWaitMs} ms for its turn (EXPENSIVE_READS_MAX_WAIT_MS)`;
    super(`too many searches, facet counts and browse pages at once: this server runs at most ${limits.concurrency} at a time (EXPENSIVE_READS_CONCURRENCY) and ${why}; retry in ${retryAfterSeconds} s`);
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
    this.limits = limits;
  }
}

interface Waiter {
  start(): void;
  timer: NodeJS.Timeout;
}

/**
 * A count that grows with every keyed read the process sends (a product
 * page's, a REST route's batches): whether it moved while an expensive read
 * ran tells whether anything was there to yield to.
 */
export type KeyedReadClock = () => number;

/** The limit itself: a counting semaphore with a bounded first-come, first-served line. */
export class ExpensiveReads {
  readonly limits: ExpensiveReadLimits;
  /** Reads refused since the start, by reason (the expensive_reads_refused_total metric). */
  readonly refused: Record<RefusalReason, number> = { 'queue full': 0, 'waited too long': 0 };
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly keyedReads: KeyedReadClock | undefined;

  /** Without `keyedReads` a slot rests after every statement; with it, only after one that ran beside keyed reads. */
  constructor(limits: ExpensiveReadLimits, keyedReads?: KeyedReadClock) {
    this.limits = limits;
    this.keyedReads = keyedReads;
  }

  /** Statements running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` in a slot, after waiting for one if need be; throws ExpensiveReadRefused instead of waiting past the limits. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.limits.concurrency === 0) return work();
    await this.acquire();
    const started = performance.now();
    const keyedBefore = this.keyedReads?.();
    try {
      return await work();
    } finally {
      // A storm alone (searches only) has nothing to yield to: no rest, full throughput.
      const contended = keyedBefore === undefined || this.keyedReads!() !== keyedBefore;
      this.rest(contended ? performance.now() - started : 0);
    }
  }

  /**
   * Gives the slot back after a rest of `busyMs` × (100 / busyPercent - 1):
   * a storm of them then keeps Postgres busy at most busyPercent of the time
   * per slot, and the keyed reads beside it (a product page) find a core
   * free that often. A read waiting meanwhile still runs out at
   * maxWaitMs: its wait counts the rest.
   */
  private rest(busyMs: number): void {
    const restMs = busyMs * (100 / this.limits.busyPercent - 1);
    if (restMs < 1) return this.release();
    setTimeout(() => this.release(), restMs).unref();
  }

  private acquire(): Promise<void> | undefined {
    if (this.running < this.limits.concurrency) {
      this.running++;
      return undefined;
    }
    if (this.waiting.length >= this.limits.queue) return this.refusedLater();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(this.refusal('waited too long'));
        }, this.limits.maxWaitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /**
   * A read that finds the line full is refused once its wait would have run
   * out, as one that waited in vain is: refused at once, a client that
   * retries at once, ignoring Retry-After, turns each refusal into a request's
   * work up to the resolver, thousands a second (40 such clients took a
   * product page's p99 to about 4x its idle value). Held, it holds no pooled
   * connection, and the process's connection caps bound how many are held.
   */
  private refusedLater(): Promise<void> {
    const refusal = this.refusal('queue full');
    return new Promise<void>((_resolve, reject) => { setTimeout(() => reject(refusal), this.limits.maxWaitMs); });
  }

  private refusal(reason: RefusalReason): ExpensiveReadRefused {
    this.refused[reason]++;
    return new ExpensiveReadRefused(reason, this.limits);
  }

  /** The slot goes to the first in line (`running` stays), else it is free. */
  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running--;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }
}
