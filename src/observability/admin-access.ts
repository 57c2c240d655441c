// Who may see the operational details: /metrics, the checks of /readyz (with
// their error messages), and the counters of /healthz. Anyone may still ask
// /healthz (alive) and /readyz (ready or not): orchestrators never need a
// token.
//
//   ADMIN_TOKEN set   details for `Authorization: Bearer <token>`, on either listener
//   ADMIN_PORT set    details on the admin listener (ADMIN_HOST, 127.0.0.1 by default),
//                     none on the API's port
//   neither           details for anyone in development and test, for no one in
//                     production (/metrics answers 403 saying what to configure)
import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Token buckets (src/ratelimit/limiter.ts's RateLimiter, handed down by the server): takes `cost` from `bucket`, of `limit` a minute. */
export interface FailureBuckets {
  take(bucket: string, cost: number, limit: number): Promise<{ remaining: number }>;
}

export interface AdminAccessOptions {
  token: string | undefined;
  /** Whether a separate admin listener serves the details. */
  listener: boolean;
  production: boolean;
  /** Wrong tokens an address may present a minute (a burst of that many, then refilled evenly); past it, 429 without a comparison. */
  failures?: { buckets: FailureBuckets; perMinute: number };
}

/**
 * What a request may see: `granted` everything; otherwise only the summary,
 * and /metrics refuses with the reason: `token` (the admin token is missing
 * or wrong: 401), `elsewhere` (served on the admin listener only: 404),
 * `closed` (production without ADMIN_TOKEN or ADMIN_PORT: 403). `throttled`:
 * the address presented too many wrong tokens lately, and this one was not
 * even compared: 429 on every admin route (a probe without a token is never
 * throttled).
 */
export type AdminGrant = 'granted' | 'token' | 'elsewhere' | 'closed' | 'throttled';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value).digest();
}

export class AdminAccess {
  private readonly options: AdminAccessOptions;
  private readonly tokenDigest: Buffer | undefined;
  constructor(options: AdminAccessOptions) {
    this.options = options;
    this.tokenDigest = options.token === undefined ? undefined : digest(options.token);
  }

  /**
   * What a request from `address` on the API's listener (`admin`: false) or
   * the admin listener may see.
   */
  async grant(headers: IncomingHttpHeaders, address: string, admin: boolean): Promise<AdminGrant> {
    if (this.tokenDigest) return this.checkToken(headers, address, this.tokenDigest);
    if (admin) return 'granted';
    if (this.options.listener) return 'elsewhere';
    return this.options.production ? 'closed' : 'granted';
  }

  /**
   * Whether the headers carry the admin token (compared in constant time).
   * Each wrong one costs its address 1 of ADMIN_AUTH_FAILURES_PER_MINUTE;
   * once those are spent, a token from there is refused before it is
   * compared, so guessing gets one try a refill.
   */
  private async checkToken(headers: IncomingHttpHeaders, address: string, tokenDigest: Buffer): Promise<AdminGrant> {
    const presented = BEARER.exec(headers.authorization ?? '')?.[1];
    if (presented === undefined) return 'token';
    const failures = this.options.failures;
    const bucket = `admin-auth:${address}`;
    if (failures && (await failures.buckets.take(bucket, 0, failures.perMinute)).remaining < 1) return 'throttled';
    if (crypto.timingSafeEqual(digest(presented), tokenDigest)) return 'granted';
    await failures?.buckets.take(bucket, 1, failures.perMinute);
    return 'token';
  }

  /** The answer to a `throttled` request from `address`: 429, Retry-After (the most a failure takes to come back), naming the limit. */
  throttledRefusal(address: string): { status: number; headers: Record<string, string>; message: string } {
    const perMinute = this.options.failures?.perMinute ?? 1;
    const seconds = Math.max(1, Math.ceil(60 / perMinute));
    return {
      status: 429,
      headers: { 'retry-after': String(seconds) },
      message: `too many wrong admin tokens from ${address}: at most ${perMinute} a minute (ADMIN_AUTH_FAILURES_PER_MINUTE); retry in ${seconds} s`,
    };
  }
}

/** Why /metrics is refused: status, headers and the {"error": ...} message. */
export function metricsRefusal(grant: Exclude<AdminGrant, 'granted' | 'throttled'>): { status: number; headers: Record<string, string>; message: string } {
  switch (grant) {
    case 'token':
      return { status: 401, headers: { 'www-authenticate': 'Bearer realm="catalogue-admin"' }, message: '/metrics needs the admin token: send "Authorization: Bearer <ADMIN_TOKEN>"' };
    case 'elsewhere':
      return { status: 404, headers: {}, message: '/metrics is served on the admin listener (ADMIN_PORT), not on this port' };
    case 'closed':
      return { status: 403, headers: {}, message: '/metrics is not served to anonymous callers in production: set ADMIN_TOKEN (then send "Authorization: Bearer <token>") or ADMIN_PORT (a separate admin listener)' };
  }
}
