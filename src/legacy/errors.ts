// What a call to the legacy service can throw. An HTTP answer, even a 4xx or a
// 5xx, is never thrown: it is returned as a LegacyResponse for the caller to
// pass on. These are the cases where there is no answer to pass on.

export abstract class LegacyError extends Error {
  /** A hint for the caller's own Retry-After (ms), when there is one. */
  abstract readonly retryAfterMs: number | undefined;
}

/** The breaker is open (or probing): nothing was sent. Answer 503 + Retry-After; reads serve the copy. */
export class LegacyCircuitOpenError extends LegacyError {
  override readonly name = 'LegacyCircuitOpenError';
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number) {
    super(`the legacy service is failing: calls are paused for ${Math.ceil(retryAfterMs)} ms (circuit breaker open)`);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * No answer: the attempt timed out or the connection failed, and it was not
 * (or may no longer be) retried. `maybeSent` says whether the request may have
 * reached the service: for a write, true means its outcome is unknown (it may
 * have been applied) and the caller has to find out by reading, not by sending
 * it again.
 */
export class LegacyUnavailableError extends LegacyError {
  override readonly name = 'LegacyUnavailableError';
  readonly retryAfterMs = undefined;
  readonly kind: 'timeout' | 'network';
  readonly maybeSent: boolean;
  readonly attempts: number;
  constructor(kind: 'timeout' | 'network', maybeSent: boolean, attempts: number, options: { cause: unknown }) {
    super(
      `${kind === 'timeout' ? 'the legacy service did not answer in time' : 'could not reach the legacy service'} ` +
        `(${attempts} attempt${attempts === 1 ? '' : 's'}${maybeSent ? ', the last one may have been received' : ''})`,
      options,
    );
    this.kind = kind;
    this.maybeSent = maybeSent;
    this.attempts = attempts;
  }
}

/** The client was closed before the call could be sent. */
export class LegacyClientClosedError extends LegacyError {
  override readonly name = 'LegacyClientClosedError';
  readonly retryAfterMs = undefined;
  constructor() {
    super('the legacy client is closed');
  }
}
