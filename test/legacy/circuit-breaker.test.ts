// The breaker's states on a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { type BreakerTicket, CircuitBreaker } from '../../src/legacy/circuit-breaker.ts';
import { FakeClock } from './fake-clock.ts';

function setup() {
  const clock = new FakeClock();
  const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000, maxCooldownMs: 3000, cooldownMultiplier: 2, clock });
  const admit = (): BreakerTicket => {
    const admission = breaker.admit();
    if (!admission.allowed) throw new Error(`refused for ${admission.retryAfterMs} ms`);
    return admission.ticket;
  };
  return { clock, breaker, admit };
}

describe('the circuit breaker', () => {
  it('opens after K consecutive failures, a success in between starts the count again', () => {
    const { breaker, admit } = setup();
    admit().failure();
    admit().failure();
    admit().success();
    admit().failure();
    admit().failure();
    expect(breaker.state).toBe('closed');
    admit().failure();
    expect(breaker.state).toBe('open');
    expect(breaker.admit()).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(breaker.stats().transitions).toEqual({ opened: 1, halfOpened: 0, closed: 0 });
  });

  it('lets one probe through after the cool-down; its success closes the breaker', async () => {
    const { clock, breaker, admit } = setup();
    for (let i = 0; i < 3; i++) admit().failure();
    await clock.advance(999);
    expect(breaker.admit().allowed).toBe(false);
    await clock.advance(1);
    expect(breaker.state).toBe('half-open');
    const probe = admit();
    expect(probe.probe).toBe(true);
    expect(breaker.admit().allowed).toBe(false); // one probe at a time
    probe.success();
    expect(breaker.state).toBe('closed');
    expect(admit().probe).toBe(false);
    expect(breaker.stats()).toMatchObject({ consecutiveFailures: 0, cooldownMs: 1000, transitions: { opened: 1, halfOpened: 1, closed: 1 } });
  });

  it('reopens on a failed probe with a longer cool-down, capped', async () => {
    const { clock, breaker, admit } = setup();
    for (let i = 0; i < 3; i++) admit().failure();
    for (const cooldown of [2000, 3000, 3000]) {
      await clock.advance(breaker.retryAfterMs());
      admit().failure();
      expect(breaker.state).toBe('open');
      expect(breaker.retryAfterMs()).toBe(cooldown);
    }
    await clock.advance(3000);
    admit().success();
    expect(breaker.stats().cooldownMs).toBe(1000);
  });

  it('lets the next call probe when a probe ends neither way', async () => {
    const { clock, breaker, admit } = setup();
    for (let i = 0; i < 3; i++) admit().failure();
    await clock.advance(1000);
    admit().neutral();
    expect(breaker.state).toBe('half-open');
    expect(admit().probe).toBe(true);
  });

  it('ignores the outcome of calls admitted before it opened', async () => {
    const { clock, breaker, admit } = setup();
    const late = admit();
    for (let i = 0; i < 3; i++) admit().failure();
    late.success();
    expect(breaker.state).toBe('open');
    await clock.advance(1000);
    const probe = admit();
    late.failure();
    probe.success();
    expect(breaker.state).toBe('closed');
  });
});
