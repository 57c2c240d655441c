import { describe, expect, it } from 'vitest';
import { fullJitterDelay, parseRetryAfter } from '../../src/legacy/backoff.ts';
import { LEGACY_CLIENT_DEFAULTS, parseHeaderLine, resolveLegacyClientOptions } from '../../src/legacy/options.ts';

describe('Retry-After', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  it('reads delay-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['2', '5'], now)).toBe(2000);
  });
  it('ignores what it cannot read', () => {
    for (const value of [undefined, '', '-1', 'soon', '2025-01-01', '1e3']) expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('full jitter', () => {
  it('is uniform below an exponentially growing cap', () => {
    expect([0, 1, 2, 3, 10].map((retry) => fullJitterDelay(retry, 100, 1000, () => 0.999999))).toEqual([99, 199, 399, 799, 999]);
    expect(fullJitterDelay(3, 100, 1000, () => 0)).toBe(0);
    expect(fullJitterDelay(1, 100, 1000, () => 0.5)).toBe(100);
  });
});

describe('options', () => {
  it('fills in the defaults', () => {
    const options = resolveLegacyClientOptions({ baseUrl: 'http://legacy.test/api/' });
    expect(options).toMatchObject(LEGACY_CLIENT_DEFAULTS);
    expect(options.baseUrl.href).toBe('http://legacy.test/api/');
    expect(LEGACY_CLIENT_DEFAULTS).toMatchObject({ maxRps: 5, maxConcurrency: 1, timeoutMs: 10_000 });
  });
  it('reports every bad value at once', () => {
    expect(() => resolveLegacyClientOptions({ baseUrl: 'ftp://x', maxRps: 0, maxConcurrency: 1.5, breakerCooldownMs: 10, breakerMaxCooldownMs: 5, headers: { 'Bad Name': 'x' } })).toThrow(
      /baseUrl must be http.*maxRps must be.*maxConcurrency must be.*breakerMaxCooldownMs must be >= breakerCooldownMs.*"Bad Name"/,
    );
  });
  it('reads one header line', () => {
    expect(parseHeaderLine('Authorization: Token abc')).toEqual({ name: 'Authorization', value: 'Token abc' });
    expect(parseHeaderLine('Authorization Token abc')).toBeUndefined();
    expect(parseHeaderLine('X: a\r\nY: b')).toBeUndefined();
  });
});
