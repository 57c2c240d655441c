// Token buckets in process memory: the limiter without REDIS_URL. Limits then
// hold per instance (N instances allow N times the budget).
import { decision, type RateLimitDecision, type RateLimiter, WINDOW_MS } from './limiter.ts';

interface Bucket {
  tokens: number;
  /** When `tokens` was last computed (ms). */
  at: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(options: { maxBuckets?: number; now?: () => number } = {}) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  async take(name: string, cost: number, limit: number): Promise<RateLimitDecision> {
    const now = this.now();
    const perMs = limit / WINDOW_MS;
    const bucket = this.buckets.get(name);
    let tokens = bucket ? Math.min(limit, bucket.tokens + Math.max(0, now - bucket.at) * perMs) : limit;
    const allowed = cost <= tokens;
    if (allowed) tokens -= cost;
    // Least recently used last; past the bound the oldest bucket goes, which
    // only ever gives that client a full bucket back.
    this.buckets.delete(name);
    this.buckets.set(name, { tokens, at: now });
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value as string);
    return decision(limit, allowed, tokens, (limit - tokens) / perMs, (cost - tokens) / perMs);
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
