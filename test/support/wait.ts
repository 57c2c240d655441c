// Waiting for an event, not for a time. A test that sleeps a fixed time and
// then asserts guesses how long the event takes; on a loaded host the guess is
// wrong and the test fails. These wait until the condition holds, up to a
// deadline generous enough for a busy two-core machine, and return as soon as
// it does: a fast machine waits milliseconds, a slow one waits longer, and a
// condition that never holds still fails, naming what was awaited.

export interface WaitOptions {
  /** Give up after this long (ms). The default suits a loaded host; it is a failure bound, not a wait. */
  timeoutMs?: number;
  /** How often to look (ms). */
  everyMs?: number;
}

/** What a truthy value of T can be. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

import { monitorEventLoopDelay } from 'node:perf_hooks';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with `probe`'s first truthy value; throws once `timeoutMs` has
 * passed without one, with `what` and the last value (or error) seen.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 15_000, everyMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last seen: ${seen})`);
    }
    await pause(everyMs);
  }
}

/**
 * Holds while `probe` stays truthy for `ms`: for the rare assertion that
 * something does NOT happen (a second message, a late write). It cannot be an
 * event wait, so keep `ms` short; it fails as soon as the probe turns false.
 */
export async function stillAfter(what: string, probe: () => unknown | Promise<unknown>, ms: number, everyMs = 10): Promise<void> {
  const end = Date.now() + ms;
  do {
    if (!(await probe())) throw new Error(`no longer true: ${what}`);
    await pause(Math.min(everyMs, Math.max(0, end - Date.now())));
  } while (Date.now() < end);
  if (!(await probe())) throw new Error(`no longer true: ${what}`);
}

/** Resolves when `emitter` emits `event` (its first argument), or rejects after `timeoutMs`. */
export function nextEvent<T = unknown>(emitter: { once(event: string, listener: (value: T) => void): unknown; off?(event: string, listener: (value: T) => void): unknown }, event: string, timeoutMs = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const listener = (value: T) => { clearTimeout(timer); resolve(value); };
    const timer = setTimeout(() => { emitter.off?.(event, listener); reject(new Error(`no '${event}' within ${timeoutMs} ms`)); }, timeoutMs);
    emitter.once(event, listener);
  });
}

/**
 * How long this process is kept from running from now until `stop()` (ms): its event loop's lateness,
 * sampled every 10 ms and summed. A bound on something this process does itself (a server in it, a
 * timer it keeps) may add it: the loaded host's share, near 0 on an idle one.
 */
export function starvation(): { stop(): number } {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return {
    stop() {
      loop.disable();
      return (Math.max(0, loop.mean - 10e6) * loop.count) / 1e6;
    },
  };
}
