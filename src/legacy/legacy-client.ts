// The one way to call the legacy Products service: the sync worker's crawl
// and the write pass-through both use it, so that together they never
// overload it.
//
// Every attempt (first tries, retries, breaker probes) takes a permit from
// the request budget (request-budget.ts: at most maxRps requests start in
// any 1 s, plus a small slack for network delays; at most maxConcurrency in
// flight) and is let through by the breaker (circuit-breaker.ts). Then, by
// answer:
//
// - below 500, not 429: returned as is (a 404 or a 400 is the caller's to pass
//   on with its status and body); counts as a success for the breaker.
// - 429: the whole client pauses until Retry-After (or a backoff delay when
//   there is none), then the call is retried, writes included: a 429 means the
//   request was not processed.
// - 503 with Retry-After: the whole client pauses too, and the call is
//   retried after it, writes included (a 503 means not processed).
// - other 5xx: GETs are retried with exponential backoff and full jitter; a
//   write is not (a 500 may come after the change was applied) and the answer
//   is returned. 503 without Retry-After: retried for writes too, with backoff.
// - timeout or network error: GETs are retried with backoff. A write is
//   retried only if it failed before a connection existed; once it may have
//   been sent, sending it again could apply it twice (two products created by
//   one POST), so LegacyUnavailableError { maybeSent: true } goes to the
//   caller, who finds out by reading. Writes use a fresh connection each so
//   that a stale keep-alive socket cannot turn into such an unknown outcome.
//
// A call gives up after maxAttempts attempts, or when a Retry-After is longer
// than retryAfterMaxWaitMs, and returns the last answer it got.
//
// The breaker is asked twice: before queueing (an open breaker fails the call
// at once) and with the permit in hand (it may have opened meanwhile; the
// permit is then given back unused). While a probe is in flight, calls already
// queued behind it wait for it when maxConcurrency is 1, or are refused.
import http from 'node:http';
import https from 'node:https';
import { fullJitterDelay, parseRetryAfter } from './backoff.ts';
import { type BreakerStats, CircuitBreaker } from './circuit-breaker.ts';
import { type Clock, sleep, systemClock } from './clock.ts';
import { LegacyCircuitOpenError, LegacyClientClosedError, LegacyUnavailableError } from './errors.ts';
import { attempt, type AttemptResult } from './http-attempt.ts';
import { type LegacyClientOptions, type ResolvedLegacyClientOptions, resolveLegacyClientOptions } from './options.ts';
import { type BudgetSnapshot, type Priority, RequestBudget } from './request-budget.ts';
import { tracedAttempt } from './traced-attempt.ts';

export type { Priority } from './request-budget.ts';

export interface LegacyResponse {
  status: number;
  /** As Node gives them: names in lower case. */
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received. */
  bytes: Buffer;
  /** The body decoded as UTF-8 (compare `bytes` when the bytes matter). */
  body: string;
  /** The body parsed as JSON; throws a SyntaxError if it is not JSON. */
  json<T = unknown>(): T;
  /** Attempts this call took (1 without retries). */
  attempts: number;
}

export interface CallOptions {
  /** 'interactive' goes ahead of 'background' in the queue. */
  priority?: Priority;
  signal?: AbortSignal;
  /** Added to (and overriding) the configured headers. */
  headers?: Record<string, string>;
}

export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface LegacyClientStats {
  /** Attempts sent (first tries, retries and probes). */
  sent: number;
  /** How the sent attempts ended. */
  outcomes: { success: number; clientError: number; throttled: number; serverError: number; timeout: number; network: number };
  /** Attempts after the first. */
  retries: number;
  /** Times a 429 or a 503 with Retry-After paused the whole client. */
  pauses: number;
  /** Calls refused by the open breaker, nothing sent. */
  failedFast: number;
  breaker: BreakerStats;
  budget: BudgetSnapshot;
  /** Wall-clock ms of the last answer below 500 other than 429, if any. */
  lastSuccessAt: number | undefined;
}

export class LegacyClient {
  readonly options: ResolvedLegacyClientOptions;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly budget: RequestBudget;
  private readonly breaker: CircuitBreaker;
  private readonly readAgent: http.Agent | https.Agent;
  private readonly writeAgent: http.Agent | https.Agent;
  private closed = false;
  private readonly counters = {
    sent: 0,
    outcomes: { success: 0, clientError: 0, throttled: 0, serverError: 0, timeout: 0, network: 0 },
    retries: 0,
    pauses: 0,
    failedFast: 0,
  };
  private lastSuccessAt: number | undefined;

  constructor(options: LegacyClientOptions) {
    this.options = resolveLegacyClientOptions(options);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    const o = this.options;
    this.budget = new RequestBudget({ maxRps: o.maxRps, maxConcurrency: o.maxConcurrency, clock: this.clock });
    this.breaker = new CircuitBreaker({
      failureThreshold: o.breakerFailureThreshold,
      cooldownMs: o.breakerCooldownMs,
      maxCooldownMs: o.breakerMaxCooldownMs,
      cooldownMultiplier: o.breakerCooldownMultiplier,
      clock: this.clock,
    });
    const Agent = o.baseUrl.protocol === 'https:' ? https.Agent : http.Agent;
    this.readAgent = new Agent({ keepAlive: true, maxSockets: o.maxConcurrency });
    this.writeAgent = new Agent({ keepAlive: false });
  }

  /** A read (idempotent: retried on 5xx, timeouts and network errors). Priority defaults to 'background'. */
  get(path: string, options: CallOptions = {}): Promise<LegacyResponse> {
    return this.call('GET', path, undefined, { priority: 'background', ...options }, true);
  }

  /** A write, passed through as is. Priority defaults to 'interactive'. See the retry rules above. */
  send(method: WriteMethod, path: string, body?: string | Uint8Array, headers?: Record<string, string>, options: Omit<CallOptions, 'headers'> = {}): Promise<LegacyResponse> {
    const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return this.call(method, path, bytes, { priority: 'interactive', ...options, headers }, false);
  }

  get breakerState() {
    return this.breaker.state;
  }

  stats(): LegacyClientStats {
    const c = this.counters;
    return {
      sent: c.sent,
      outcomes: { ...c.outcomes },
      retries: c.retries,
      pauses: c.pauses,
      failedFast: c.failedFast,
      breaker: this.breaker.stats(),
      budget: this.budget.snapshot(),
      lastSuccessAt: this.lastSuccessAt,
    };
  }

  /** Refuses queued and later calls; closes the connections (calls in flight fail). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.budget.close(new LegacyClientClosedError());
    this.readAgent.destroy();
    this.writeAgent.destroy();
  }

  private url(path: string): URL {
    if (!path.startsWith('/') || path.startsWith('//')) throw new TypeError(`a legacy path starts with one /, got ${JSON.stringify(path)}`);
    const base = this.options.baseUrl;
    return new URL(base.pathname.replace(/\/+$/, '') + path, base);
  }

  private async call(method: string, path: string, body: Buffer | undefined, options: CallOptions, idempotent: boolean): Promise<LegacyResponse> {
    if (this.closed) throw new LegacyClientClosedError();
    const url = this.url(path);
    const headers = { ...this.options.headers, ...options.headers };
    const priority = options.priority ?? 'background';
    const { signal } = options;
    const o = this.options;

    for (let attempts = 1; ; attempts++) {
      // Fail fast before queueing; checked again once a permit is in hand.
      const refusedFor = this.breaker.retryAfterMs();
      if (refusedFor > 0) {
        this.counters.failedFast++;
        throw new LegacyCircuitOpenError(refusedFor);
      }
      const permit = await this.budget.acquire(priority, signal);
      const admission = this.breaker.admit();
      if (!admission.allowed) {
        permit.cancel();
        this.counters.failedFast++;
        throw new LegacyCircuitOpenError(admission.retryAfterMs);
      }
      const { ticket } = admission;
      this.counters.sent++;
      let result;
      try {
        // With traces on: a span per attempt, and its traceparent sent (traced-attempt.ts).
        result = await tracedAttempt(method, url, attempts, (traceHeaders) => attempt({
          url, method, headers: traceHeaders ? { ...headers, ...traceHeaders } : headers, body, timeoutMs: o.timeoutMs,
          agent: idempotent ? this.readAgent : this.writeAgent, clock: this.clock, signal, onSent: permit.sent,
        }));
      } catch (error) {
        permit.release();
        throw error;
      }
      const canRetry = attempts < o.maxAttempts;
      const backoff = () => fullJitterDelay(attempts - 1, o.backoffBaseMs, o.backoffMaxMs, this.random);
      // The breaker hears the outcome and a pause starts before the permit goes
      // back: a waiting request must not slip out in between.
      const outcome = this.record(result);
      ticket[outcome]();
      const pausedFor = result.kind === 'response' ? this.pauseFor(result.status, result.headers, backoff) : undefined;
      permit.release();

      if (result.kind === 'aborted') throw signal?.reason ?? result.error;
      if (result.kind !== 'response') {
        if (canRetry && (idempotent || !result.maybeSent)) {
          this.counters.retries++;
          await sleep(this.clock, backoff(), signal);
          continue;
        }
        throw new LegacyUnavailableError(result.kind, result.maybeSent, attempts, { cause: result.error });
      }

      const response = toResponse(result.status, result.headers, result.bytes, attempts);
      if (result.status === 429) {
        if (!canRetry || pausedFor! > o.retryAfterMaxWaitMs) return response;
        this.counters.retries++;
        continue; // the budget holds every request until the pause is over
      }
      if (result.status >= 500) {
        if (!canRetry || !(idempotent || result.status === 503)) return response;
        if (pausedFor !== undefined) {
          if (pausedFor > o.retryAfterMaxWaitMs) return response;
        } else {
          await sleep(this.clock, backoff(), signal);
        }
        this.counters.retries++;
        continue;
      }
      return response;
    }
  }

  /** Counts how an attempt ended; says what it means for the breaker. */
  private record(result: AttemptResult): 'success' | 'failure' | 'neutral' {
    const outcomes = this.counters.outcomes;
    if (result.kind === 'aborted') return 'neutral';
    if (result.kind !== 'response') {
      outcomes[result.kind]++;
      return 'failure';
    }
    if (result.status === 429) {
      outcomes.throttled++;
      return 'neutral';
    }
    if (result.status >= 500) {
      outcomes.serverError++;
      return 'failure';
    }
    if (result.status >= 400) outcomes.clientError++;
    else outcomes.success++;
    this.lastSuccessAt = this.clock.wallNow();
    return 'success';
  }

  /**
   * For a 429 (Retry-After, else a backoff delay) or a 503 with Retry-After:
   * nothing is sent to the service for that long (at most retryAfterMaxMs).
   * Returns the delay the service asked for, undefined if no pause.
   */
  private pauseFor(status: number, headers: http.IncomingHttpHeaders, backoff: () => number): number | undefined {
    if (status !== 429 && status !== 503) return undefined;
    let ms = parseRetryAfter(headers['retry-after'], this.clock.wallNow());
    if (ms === undefined && status === 429) ms = backoff();
    if (ms === undefined) return undefined;
    this.counters.pauses++;
    this.budget.pauseUntil(this.clock.now() + Math.min(ms, this.options.retryAfterMaxMs));
    return ms;
  }
}

function toResponse(status: number, headers: http.IncomingHttpHeaders, bytes: Buffer, attempts: number): LegacyResponse {
  const body = bytes.toString('utf8');
  return { status, headers, bytes, body, json: <T>() => JSON.parse(body) as T, attempts };
}
