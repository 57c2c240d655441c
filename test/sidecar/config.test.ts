// Sidecar mode's settings: off without LEGACY_SOURCE_URL, the legacy client's
// defaults with it, and every bad value reported by name (never a token).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { LEGACY_CLIENT_DEFAULTS } from '../../src/legacy/options.ts';
import { configProblems as problems } from '../support/config-problems.ts';

describe('sidecar configuration', () => {
  it('is off by default', () => {
    expect(loadConfig({}).sidecar).toBeUndefined();
  });

  it('LEGACY_SOURCE_URL switches it on, with the legacy client defaults', () => {
    const sidecar = loadConfig({ LEGACY_SOURCE_URL: 'http://legacy.example:8080/api' }).sidecar!;
    expect(sidecar).toMatchObject({ syncIntervalSeconds: 30, sync: true, pageSize: 100, recentIds: 10_000 });
    expect(sidecar.client).toMatchObject({
      baseUrl: 'http://legacy.example:8080/api', headers: {},
      maxRps: 5, maxConcurrency: 1, timeoutMs: 10_000,
      maxAttempts: LEGACY_CLIENT_DEFAULTS.maxAttempts, breakerFailureThreshold: LEGACY_CLIENT_DEFAULTS.breakerFailureThreshold,
    });
  });

  it('reads the header line and the budget', () => {
    const sidecar = loadConfig({
      LEGACY_SOURCE_URL: 'https://legacy.example', LEGACY_SOURCE_HEADER: 'Authorization: Token abc',
      LEGACY_MAX_RPS: '20', LEGACY_MAX_CONCURRENCY: '2', LEGACY_TIMEOUT_MS: '500', LEGACY_SYNC_INTERVAL_SECONDS: '0.5', LEGACY_SYNC: 'off',
    }).sidecar!;
    expect(sidecar.client).toMatchObject({ headers: { Authorization: 'Token abc' }, maxRps: 20, maxConcurrency: 2, timeoutMs: 500 });
    expect(sidecar).toMatchObject({ syncIntervalSeconds: 0.5, sync: false });
  });

  it('reports bad values by name, never echoing the header', () => {
    const found = problems({ LEGACY_SOURCE_URL: 'ftp://legacy.example', LEGACY_SOURCE_HEADER: 'no colon secret-token', LEGACY_MAX_RPS: '0', LEGACY_SYNC_INTERVAL_SECONDS: 'soon' });
    expect(found.join('\n')).toMatch(/LEGACY_SOURCE_URL must start with http:\/\/ or https:\/\//);
    expect(found.join('\n')).toMatch(/LEGACY_SOURCE_HEADER must be one header line/);
    expect(found.join('\n')).toMatch(/LEGACY_MAX_RPS must be an integer from 1/);
    expect(found.join('\n')).toMatch(/LEGACY_SYNC_INTERVAL_SECONDS must be a number/);
    expect(found.join('\n')).not.toMatch(/secret-token/);
    expect(problems({ LEGACY_SOURCE_HEADER: 'Authorization: Token abc' })).toEqual(['LEGACY_SOURCE_HEADER is set but LEGACY_SOURCE_URL is not']);
    expect(problems({ LEGACY_SOURCE_URL: 'http://legacy.example/?x=1' }).join('\n')).toMatch(/query/);
  });
});
