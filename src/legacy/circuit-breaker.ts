// Circuit breaker for the legacy service: stop calling a service that is
// failing, and find out now and then whether it is back.
//
//   closed     every call goes through; `failureThreshold` consecutive failures
//              (5xx, timeouts, network errors) open it.
//   open       calls fail fast (nothing is sent) until the cool-down is over.
//   half-open  the next call is the probe; the others fail fast while it is in
//              flight. The probe's success closes the breaker (and resets the
//              cool-down); its failure opens it again with the cool-down times
//              `cooldownMultiplier`, at most `maxCooldownMs`. A probe that ends
//              neither way (a 429, an aborted call) lets the next call probe.
//
// Probes are the callers' own requests (the sync crawl calls often enough);
// the breaker sends nothing by itself. Outcomes of calls admitted before the
// breaker opened are ignored once it has: only a probe can close it.
import { type Clock, systemClock } from './clock.ts';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** First cool-down after opening. */
  cooldownMs: number;
  /** Longest cool-down after repeated failed probes. */
  maxCooldownMs: number;
  /** Each failed probe multiplies the cool-down by this. */
  cooldownMultiplier: number;
  clock?: Clock;
}

/** The right to send one request, and the place to report how it went. */
export interface BreakerTicket {
  readonly probe: boolean;
  success(): void;
  failure(): void;
  /** Neither (a 429, an abort): says nothing about the service's health. */
  neutral(): void;
}

export type Admission = { allowed: true; ticket: BreakerTicket } | { allowed: false; retryAfterMs: number };

export interface BreakerStats {
  state: BreakerState;
  consecutiveFailures: number;
  /** Current cool-down (grows with failed probes). */
  cooldownMs: number;
  /** Until when it is open (monotonic ms), if open. */
  openUntil: number | undefined;
  transitions: { opened: number; halfOpened: number; closed: number };
  /** Calls refused without sending. */
  rejected: number;
}

export class CircuitBreaker {
  private readonly options: Required<Omit<CircuitBreakerOptions, 'clock'>>;
  private readonly clock: Clock;
  private current: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private cooldown: number;
  private openUntil = 0;
  private probeInFlight = false;
  /** Bumped on every transition: tickets from an earlier state are stale. */
  private generation = 0;
  private readonly transitions = { opened: 0, halfOpened: 0, closed: 0 };
  private rejected = 0;

  constructor(options: CircuitBreakerOptions) {
    if (!(Number.isInteger(options.failureThreshold) && options.failureThreshold >= 1)) throw new RangeError('failureThreshold must be a positive integer');
    if (!(options.cooldownMs > 0 && options.maxCooldownMs >= options.cooldownMs)) throw new RangeError('need 0 < cooldownMs <= maxCooldownMs');
    if (!(options.cooldownMultiplier >= 1)) throw new RangeError('cooldownMultiplier must be >= 1');
    const { clock, ...rest } = options;
    this.options = rest;
    this.clock = clock ?? systemClock;
    this.cooldown = options.cooldownMs;
  }

  get state(): BreakerState {
    if (this.current === 'open' && this.clock.now() >= this.openUntil) this.moveTo('half-open');
    return this.current;
  }

  /** How long a caller refused now should wait (0 if a call would be let through). */
  retryAfterMs(): number {
    const state = this.state;
    if (state === 'closed') return 0;
    if (state === 'open') return Math.max(0, this.openUntil - this.clock.now());
    // Half-open: 0 if the probe is free; else the probe decides, soon.
    return this.probeInFlight ? this.cooldown : 0;
  }

  /** Decides whether one request may be sent now; counts a refusal. */
  admit(): Admission {
    const state = this.state;
    if (state === 'open' || (state === 'half-open' && this.probeInFlight)) {
      this.rejected++;
      return { allowed: false, retryAfterMs: this.retryAfterMs() };
    }
    const probe = state === 'half-open';
    if (probe) this.probeInFlight = true;
    return { allowed: true, ticket: this.ticket(probe) };
  }

  stats(): BreakerStats {
    const state = this.state;
    return {
      state,
      consecutiveFailures: this.consecutiveFailures,
      cooldownMs: this.cooldown,
      openUntil: state === 'open' ? this.openUntil : undefined,
      transitions: { ...this.transitions },
      rejected: this.rejected,
    };
  }

  private ticket(probe: boolean): BreakerTicket {
    const generation = this.generation;
    let settled = false;
    const settle = (outcome: 'success' | 'failure' | 'neutral') => {
      if (settled) return;
      settled = true;
      if (generation !== this.generation) return;
      if (probe) {
        this.probeInFlight = false;
        if (outcome === 'success') {
          this.cooldown = this.options.cooldownMs;
          this.moveTo('closed');
        } else if (outcome === 'failure') {
          this.cooldown = Math.min(this.options.maxCooldownMs, this.cooldown * this.options.cooldownMultiplier);
          this.open();
        }
        return;
      }
      if (outcome === 'success') this.consecutiveFailures = 0;
      else if (outcome === 'failure' && ++this.consecutiveFailures >= this.options.failureThreshold) this.open();
    };
    return { probe, success: () => settle('success'), failure: () => settle('failure'), neutral: () => settle('neutral') };
  }

  private open(): void {
    this.openUntil = this.clock.now() + this.cooldown;
    this.moveTo('open');
  }

  private moveTo(state: BreakerState): void {
    this.current = state;
    this.generation++;
    this.probeInFlight = false;
    if (state === 'closed') {
      this.consecutiveFailures = 0;
      this.transitions.closed++;
    } else if (state === 'open') this.transitions.opened++;
    else this.transitions.halfOpened++;
  }
}
