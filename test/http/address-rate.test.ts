// The token bucket of connections and refusals told per address
// (src/http/connections.ts): exact at a full bucket, whatever the clock's
// fractional milliseconds.
import { afterEach, describe, expect, it } from 'vitest';
import { AddressRate } from '../../src/http/connections.ts';

const rates: AddressRate[] = [];
afterEach(() => {
  for (const rate of rates.splice(0)) rate.stop();
});

describe('AddressRate', () => {
  it('lets the first take through at any time, then refuses past the burst until a token is due', () => {
    // Times where (now + 1000) - now rounds above 1000 in floating point.
    const times = Array.from({ length: 20_000 }, (_, i) => 1_000 + i * 1.37 + 0.123456789).filter((now) => (now + 1_000) - now > 1_000);
    expect(times.length).toBeGreaterThan(0);
    for (const now of times) {
      const rate = new AddressRate(1, 1);
      rates.push(rate);
      expect(rate.take('203.0.113.9', now)).toBe(true);
      expect(rate.take('203.0.113.9', now + 1)).toBe(false);
      expect(rate.take('203.0.113.9', now + 1_000)).toBe(true);
      rate.stop();
    }
  });

  it('allows a burst, then one per interval', () => {
    const rate = new AddressRate(10, 3);
    rates.push(rate);
    expect([0, 0, 0, 0].map(() => rate.take('a', 500.5))).toEqual([true, true, true, false]);
    expect(rate.take('a', 600.5)).toBe(true);
    expect(rate.take('a', 600.6)).toBe(false);
    expect(rate.take('b', 600.6)).toBe(true);
  });
});
