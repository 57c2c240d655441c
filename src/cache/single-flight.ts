// Single flight: concurrent misses for one key reach Postgres once. The first
// produces the response; identical requests meanwhile may wait for it. Who
// may wait is the response cache's decision (a read begun before a write the
// waiter knows of would show it the old data): each flight carries the token
// taken before its read began, for that decision.
import type { CachedResponse, CacheToken } from './entry.ts';

/** How long a request waits for an identical one already running before running itself. */
export const FOLLOW_TIMEOUT_MS = 2_000;

/** A miss being produced: its response, and the store's counter before its read began with when it began (undefined: unknown). */
export interface Flight {
  response: Promise<CachedResponse | undefined>;
  began: Promise<CacheToken | undefined>;
}

/** The misses being produced, by key. */
export class SingleFlight {
  private readonly flights = new Map<string, Flight>();

  /** The flight producing `key`, if one is running. */
  get(key: string): Flight | undefined {
    return this.flights.get(key);
  }

  /**
   * Starts producing `key` (a flight running already is replaced: later
   * identical requests wait for this one); returns the flight and its
   * `settle`, which ends it and hands the response to whoever waits.
   */
  set(key: string, began: Promise<CacheToken | undefined>): { flight: Flight; settle(response: CachedResponse | undefined): void } {
    let release!: (response: CachedResponse | undefined) => void;
    const response = new Promise<CachedResponse | undefined>((resolve) => { release = resolve; });
    const flight: Flight = { response, began };
    this.flights.set(key, flight);
    // Never let a lost producer hold its key.
    const lost = setTimeout(() => this.invalidate(key, flight), FOLLOW_TIMEOUT_MS);
    lost.unref();
    return {
      flight,
      settle: (value) => {
        clearTimeout(lost);
        this.invalidate(key, flight);
        release(value);
      },
    };
  }

  /** Forgets `key`'s flight (only `flight`, when given: a later one stays). */
  invalidate(key: string, flight?: Flight): void {
    if (flight === undefined || this.flights.get(key) === flight) this.flights.delete(key);
  }

  /** The flight's response, or undefined when it ends without one or takes longer than FOLLOW_TIMEOUT_MS. */
  static async follow(flight: Flight): Promise<CachedResponse | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), FOLLOW_TIMEOUT_MS); });
    try {
      return await Promise.race([flight.response, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
