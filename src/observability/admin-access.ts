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

export interface AdminAccessOptions {
  token: string | undefined;
  /** Whether a separate admin listener serves the details. */
  listener: boolean;
  production: boolean;
}

/**
 * What a request may see: `granted` everything; otherwise only the summary,
 * and /metrics refuses with the reason: `token` (the admin token is missing
 * or wrong: 401), `elsewhere` (served on the admin listener only: 404),
 * `closed` (production without ADMIN_TOKEN or ADMIN_PORT: 403).
 */
export type AdminGrant = 'granted' | 'token' | 'elsewhere' | 'closed';

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

  /** Whether the headers carry the admin token (compared in constant time). */
  private hasToken(headers: IncomingHttpHeaders): boolean {
    const presented = BEARER.exec(headers.authorization ?? '')?.[1];
    return presented !== undefined && this.tokenDigest !== undefined && crypto.timingSafeEqual(digest(presented), this.tokenDigest);
  }

  /** What a request on the API's listener (`admin`: false) or the admin listener may see. */
  grant(headers: IncomingHttpHeaders, admin: boolean): AdminGrant {
    if (this.tokenDigest) return this.hasToken(headers) ? 'granted' : 'token';
    if (admin) return 'granted';
    if (this.options.listener) return 'elsewhere';
    return this.options.production ? 'closed' : 'granted';
  }
}

/** Why /metrics is refused: status, headers and the {"error": ...} message. */
export function metricsRefusal(grant: Exclude<AdminGrant, 'granted'>): { status: number; headers: Record<string, string>; message: string } {
  switch (grant) {
    case 'token':
      return { status: 401, headers: { 'www-authenticate': 'Bearer realm="catalogue-admin"' }, message: '/metrics needs the admin token: send "Authorization: Bearer <ADMIN_TOKEN>"' };
    case 'elsewhere':
      return { status: 404, headers: {}, message: '/metrics is served on the admin listener (ADMIN_PORT), not on this port' };
    case 'closed':
      return { status: 403, headers: {}, message: '/metrics is not served to anonymous callers in production: set ADMIN_TOKEN (then send "Authorization: Bearer <token>") or ADMIN_PORT (a separate admin listener)' };
  }
}
