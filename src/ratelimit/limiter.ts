// Rate limits are token buckets: each client (an API key, or the address of an
// anonymous client) has a bucket holding up to its budget per minute, refilled
// continuously at budget/60 per second; a request takes its cost (REST: 1,
// GraphQL: the operation's cost) or, when the bucket holds less, is refused
// and takes nothing. A full minute's budget can be spent in a burst.
// The same arithmetic runs in process (memory-limiter.ts) and, shared by every
// instance, in one Redis script (redis-limiter.ts).

/** The refill period: a bucket refills its whole budget in this time. */
export const WINDOW_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  /** The budget per minute. */
  limit: number;
  /** Whole units left in the bucket after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the bucket holds this request's cost (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Takes `cost` from `bucket` (of `limit` per minute) if it holds that much. */
  take(bucket: string, cost: number, limit: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** Builds the decision from what both implementations compute (times in milliseconds). */
export function decision(limit: number, allowed: boolean, tokens: number, msUntilFull: number, msUntilCost: number): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil(msUntilFull / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(msUntilCost / 1000)),
  };
}
