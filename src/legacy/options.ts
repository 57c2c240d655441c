// Settings of the legacy client, with their defaults. src/config.ts will read
// them from the environment (proposed names in each comment); this file only
// says what they mean and checks them.
import type { Clock } from './clock.ts';

export interface LegacyClientOptions {
  /** LEGACY_SOURCE_URL: the legacy service, e.g. https://legacy.example/api (paths are appended to its path). */
  baseUrl: string | URL;
  /** LEGACY_SOURCE_HEADER ("Authorization: Token abc"): sent with every request. */
  headers?: Record<string, string>;
  /** LEGACY_MAX_RPS: at most this many requests arrive at the service in any 1 s window (request-budget.ts). */
  maxRps?: number;
  /** LEGACY_MAX_CONCURRENCY: at most this many requests in flight at once. */
  maxConcurrency?: number;
  /** LEGACY_TIMEOUT_MS: per attempt, for the whole exchange (connect, send, headers, body). */
  timeoutMs?: number;
  /** LEGACY_MAX_ATTEMPTS: attempts per call, the first included, for every retryable reason. */
  maxAttempts?: number;
  /** LEGACY_BACKOFF_BASE_MS: the first retry waits a random time below this; each next one below twice the last cap. */
  backoffBaseMs?: number;
  /** LEGACY_BACKOFF_MAX_MS: cap of the backoff delay. */
  backoffMaxMs?: number;
  /** LEGACY_RETRY_AFTER_MAX_MS: a Retry-After longer than this pauses the client only this long (guards against a bad date or clock). */
  retryAfterMaxMs?: number;
  /**
   * LEGACY_RETRY_AFTER_MAX_WAIT_MS: a call waits for a Retry-After up to this
   * long, then retries; a longer one returns the 429/503 to the caller (the
   * client stays paused).
   */
  retryAfterMaxWaitMs?: number;
  /** LEGACY_BREAKER_FAILURES: consecutive failures (5xx, timeouts, network errors) that open the breaker. */
  breakerFailureThreshold?: number;
  /** LEGACY_BREAKER_COOLDOWN_MS: first cool-down before a probe. */
  breakerCooldownMs?: number;
  /** LEGACY_BREAKER_MAX_COOLDOWN_MS: cap of the cool-down, which doubles with each failed probe. */
  breakerMaxCooldownMs?: number;
  /** Growth of the cool-down per failed probe (not a setting). */
  breakerCooldownMultiplier?: number;
  /** Tests: time and timers. */
  clock?: Clock;
  /** Tests: the jitter's randomness, uniform in [0, 1). */
  random?: () => number;
}

export const LEGACY_CLIENT_DEFAULTS = {
  maxRps: 5,
  maxConcurrency: 1,
  timeoutMs: 10_000,
  maxAttempts: 4,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
  retryAfterMaxMs: 300_000,
  retryAfterMaxWaitMs: 30_000,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 5_000,
  breakerMaxCooldownMs: 300_000,
  breakerCooldownMultiplier: 2,
} as const;

export type ResolvedLegacyClientOptions = Required<Omit<LegacyClientOptions, 'baseUrl' | 'clock' | 'random' | 'headers'>> & {
  baseUrl: URL;
  headers: Record<string, string>;
};

/** Fills in the defaults and checks every value; all problems in one RangeError. */
export function resolveLegacyClientOptions(options: LegacyClientOptions): ResolvedLegacyClientOptions {
  const problems: string[] = [];
  let baseUrl: URL | undefined;
  try {
    baseUrl = new URL(options.baseUrl);
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') problems.push(`baseUrl must be http or https, got ${baseUrl.protocol}`);
    if (baseUrl.search || baseUrl.hash) problems.push('baseUrl must not have a query or a fragment');
  } catch {
    problems.push(`baseUrl is not a URL: ${String(options.baseUrl)}`);
  }
  const merged = { ...LEGACY_CLIENT_DEFAULTS, ...definedOnly(options) };
  const integer = (name: keyof typeof LEGACY_CLIENT_DEFAULTS, min: number) => {
    const value = merged[name];
    if (!(Number.isInteger(value) && value >= min)) problems.push(`${name} must be an integer >= ${min}, got ${value}`);
  };
  integer('maxRps', 1);
  integer('maxConcurrency', 1);
  integer('timeoutMs', 1);
  integer('maxAttempts', 1);
  integer('backoffBaseMs', 0);
  integer('backoffMaxMs', 0);
  integer('retryAfterMaxMs', 0);
  integer('retryAfterMaxWaitMs', 0);
  integer('breakerFailureThreshold', 1);
  integer('breakerCooldownMs', 1);
  integer('breakerMaxCooldownMs', 1);
  if (merged.breakerMaxCooldownMs < merged.breakerCooldownMs) problems.push('breakerMaxCooldownMs must be >= breakerCooldownMs');
  if (!(merged.breakerCooldownMultiplier >= 1)) problems.push('breakerCooldownMultiplier must be >= 1');
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value)) problems.push(`header ${JSON.stringify(name)} is not a valid header`);
  }
  if (problems.length > 0 || !baseUrl) throw new RangeError(`legacy client options: ${problems.join('; ')}`);
  const { clock: _clock, random: _random, ...rest } = merged as typeof merged & Pick<LegacyClientOptions, 'clock' | 'random'>;
  return { ...rest, baseUrl, headers: { ...options.headers } };
}

/**
 * One header line as LEGACY_SOURCE_HEADER gives it ("Authorization: Token abc")
 * as a name and a value; undefined if it is not one.
 */
export function parseHeaderLine(line: string): { name: string; value: string } | undefined {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n\0]*?)[ \t]*$/.exec(line);
  return match ? { name: match[1]!, value: match[2]! } : undefined;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
