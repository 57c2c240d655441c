// Time for the legacy client, injectable so tests can drive it. `now` is a
// monotonic clock (budget windows, cool-downs, backoff never jump with the
// wall clock); `wallNow` is only used to turn an HTTP-date Retry-After into a
// delay and to stamp the last success for /readyz.
import { performance } from 'node:perf_hooks';

export interface Clock {
  /** Monotonic milliseconds (any origin). */
  now(): number;
  /** Wall-clock milliseconds since the epoch. */
  wallNow(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Resolves after `ms` on `clock`; rejects with the signal's reason if it is aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
