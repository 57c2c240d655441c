// What a write passed through to the legacy service (sidecar mode) can end in
// besides success; REST answers them with the legacy service's own status and
// body, GraphQL with a code (src/graphql/resolvers/mutation.ts).

/** The legacy service refused the write (a 4xx, or a 5xx after which nothing may have changed): its answer, passed on. */
export class LegacyRejected extends Error {
  readonly status: number;
  /** The legacy body as received. */
  readonly body: string;
  readonly contentType: string;
  constructor(status: number, body: string, contentType: string | undefined) {
    let message = `the legacy service answered ${status}`;
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      if (typeof parsed?.error === 'string') message = parsed.error;
    } catch { /* not JSON: keep the generic message */ }
    super(message);
    this.name = 'LegacyRejected';
    this.status = status;
    this.body = body;
    this.contentType = contentType ?? 'application/json; charset=utf-8';
  }
}

/** The legacy service could not be reached (down, breaker open, no answer in time): nothing was written here; 503 with Retry-After. */
export class LegacySourceUnavailable extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'LegacySourceUnavailable';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/**
 * The legacy service accepted the write but could not be read back at once:
 * its answer is passed on; the local copy follows at the next sync round
 * (the product is first in its queue).
 */
export class LegacyAcceptedNotApplied extends Error {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly productId: number;
  constructor(productId: number, status: number, body: string, contentType: string | undefined, cause: unknown) {
    super(`the legacy service accepted the write of product ${productId} but could not be read back yet; it shows here after the next sync round`, { cause });
    this.name = 'LegacyAcceptedNotApplied';
    this.productId = productId;
    this.status = status;
    this.body = body;
    this.contentType = contentType ?? 'application/json; charset=utf-8';
  }
}
