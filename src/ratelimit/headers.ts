// The rate-limit response headers (IETF draft "RateLimit header fields for
// HTTP": RateLimit-Limit, -Remaining, -Reset in seconds), plus Retry-After
// on a refusal.
import type { RateLimitDecision } from './limiter.ts';

export function rateLimitHeaders(decision: RateLimitDecision): [string, string][] {
  const headers: [string, string][] = [
    ['ratelimit-limit', String(decision.limit)],
    ['ratelimit-remaining', String(decision.remaining)],
    ['ratelimit-reset', String(decision.resetSeconds)],
  ];
  if (!decision.allowed) headers.push(['retry-after', String(decision.retryAfterSeconds)]);
  return headers;
}
