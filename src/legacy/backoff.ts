// How long to wait before trying the legacy service again.

/**
 * Exponential backoff with full jitter (a uniform delay in [0, cap)), where
 * cap = min(maxDelayMs, baseDelayMs × 2^retry) and `retry` counts from 0 for
 * the first retry. Full jitter spreads the retries of many callers (or of a
 * crawl restarted in several places) instead of sending them in waves.
 */
export function fullJitterDelay(retry: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
  return Math.floor(random() * cap);
}

const DELAY_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/;

/**
 * A Retry-After header as a delay in ms from now: delay-seconds ("120") or an
 * HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT", compared with `wallNow`, never
 * negative). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, wallNow: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  const seconds = DELAY_SECONDS.exec(text);
  // Integers per RFC 9110; a fraction is rounded up, never down.
  if (seconds) return Math.ceil(Number(seconds[1]) * 1000);
  // Only dates that name a time zone: Date.parse would read a bare date as local time.
  if (!/GMT|UTC|[+-]\d{4}\s*$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - wallNow);
}
