// The HTTP connection limits and the shutdown grace period: defaults, and
// every bad value reported with its name.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';
import { checkingIntervalMs, timeoutOptions } from '../../src/http/connections.ts';

const problems = configProblems;

describe('HTTP connection limits', () => {
  it('defaults: 10 s for headers, 30 s for a request, 72 s keep-alive (above nginx 60 s), 10,000 connections, 1,000 an address, 200 new ones a second an address', () => {
    expect(loadConfig({})).toMatchObject({
      httpHeadersTimeoutMs: 10_000, httpRequestTimeoutMs: 30_000, httpKeepAliveTimeoutMs: 72_000, httpMaxConnections: 10_000, httpMaxConnectionsPerAddress: 1_000, httpNewConnectionsPerAddressPerSecond: 200,
    });
  });

  it('takes each from the environment', () => {
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '3000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000', HTTP_MAX_CONNECTIONS: '50', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '20', HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: '7' })).toMatchObject({
      httpHeadersTimeoutMs: 2_000, httpRequestTimeoutMs: 3_000, httpKeepAliveTimeoutMs: 5_000, httpMaxConnections: 50, httpMaxConnectionsPerAddress: 20, httpNewConnectionsPerAddressPerSecond: 7,
    });
  });

  it('names every bad value', () => {
    expect(problems({ HTTP_HEADERS_TIMEOUT_MS: '0', HTTP_REQUEST_TIMEOUT_MS: 'soon', HTTP_KEEP_ALIVE_TIMEOUT_MS: '-1', HTTP_MAX_CONNECTIONS: '0' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS must be an integer from 100 to 600000 (got "0")',
      'HTTP_REQUEST_TIMEOUT_MS must be an integer from 100 to 3600000 (got "soon")',
      'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer from 1000 to 3600000 (got "-1")',
      'HTTP_MAX_CONNECTIONS must be an integer from 1 to 1000000 (got "0")',
    ]);
  });

  it('refuses a headers timeout longer than the request timeout (node:http would throw)', () => {
    expect(problems({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS (5000) must not exceed HTTP_REQUEST_TIMEOUT_MS (4000): the headers are part of the request',
    ]);
  });

  it('has node:http check the timeouts a tenth as often as the shorter one, at most every second', () => {
    const limits = { headersTimeoutMs: 2_000, requestTimeoutMs: 3_000, keepAliveTimeoutMs: 72_000, maxConnections: 10, maxConnectionsPerAddress: 10, newConnectionsPerAddressPerSecond: 10 };
    expect(checkingIntervalMs(limits)).toBe(200);
    expect(checkingIntervalMs({ ...limits, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 })).toBe(1_000);
    expect(timeoutOptions(limits)).toEqual({
      requestTimeout: 3_000, keepAliveTimeout: 72_000,
      http: { requestTimeout: 3_000, headersTimeout: 2_000, connectionsCheckingInterval: 200 },
    });
  });
});

describe('SHUTDOWN_IDLE_GRACE_MS', () => {
  it('is 1 s by default, or half of a shorter SHUTDOWN_TIMEOUT_MS', () => {
    expect(loadConfig({}).shutdownIdleGraceMs).toBe(1_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '500' }).shutdownIdleGraceMs).toBe(250);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '0' }).shutdownIdleGraceMs).toBe(1_000);
    expect(loadConfig({ SHUTDOWN_IDLE_GRACE_MS: '0' }).shutdownIdleGraceMs).toBe(0);
  });

  it('must be shorter than SHUTDOWN_TIMEOUT_MS: it is part of that deadline', () => {
    expect(problems({ SHUTDOWN_TIMEOUT_MS: '2000', SHUTDOWN_IDLE_GRACE_MS: '2000' })).toEqual([
      'SHUTDOWN_IDLE_GRACE_MS (2000) must be less than SHUTDOWN_TIMEOUT_MS (2000): the grace period is part of the shutdown deadline',
    ]);
    expect(problems({ SHUTDOWN_IDLE_GRACE_MS: 'long' })).toEqual(['SHUTDOWN_IDLE_GRACE_MS must be an integer from 0 to 600000 (got "long")']);
  });
});
