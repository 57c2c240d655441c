// The live subscriptions' caps (docs/subscriptions.md "Limits and access"):
// defaults, each from the environment, and the combinations refused.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems as problems } from '../support/config-problems.ts';

describe('live caps', () => {
  it('defaults: 4/5 of HTTP_MAX_CONNECTIONS for live connections, 500 an address, 2,000 a key, 50 awaiting connection_init; 50,000 subscriptions and 200,000 watched ids, 5,000 and 20,000 a client', () => {
    expect(loadConfig({}).live.caps).toEqual({
      connections: 8_000, connectionsPerAddress: 500, connectionsPerKey: 2_000, pendingPerAddress: 50,
      subscriptions: 50_000, subscriptionsPerClient: 5_000, watches: 200_000, watchesPerClient: 20_000,
    });
    expect(loadConfig({ HTTP_MAX_CONNECTIONS: '1000' }).live.caps.connections).toBe(800);
  });

  it('takes each from the environment', () => {
    expect(loadConfig({
      LIVE_MAX_CONNECTIONS: '20', LIVE_MAX_CONNECTIONS_PER_ADDRESS: '5', LIVE_MAX_CONNECTIONS_PER_KEY: '6', LIVE_MAX_PENDING_PER_ADDRESS: '2',
      LIVE_MAX_SUBSCRIPTIONS: '30', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '3', LIVE_MAX_WATCHED_IDS: '400', LIVE_MAX_WATCHED_IDS_PER_CLIENT: '100',
    }).live.caps).toEqual({
      connections: 20, connectionsPerAddress: 5, connectionsPerKey: 6, pendingPerAddress: 2,
      subscriptions: 30, subscriptionsPerClient: 3, watches: 400, watchesPerClient: 100,
    });
  });

  it('refuses more live connections than connections, and fewer watched ids a client than one subscription may have', () => {
    expect(problems({ HTTP_MAX_CONNECTIONS: '100', LIVE_MAX_CONNECTIONS: '101', LIVE_MAX_WATCHED_IDS_PER_CLIENT: '99', LIVE_MAX_PENDING_PER_ADDRESS: '0' })).toEqual([
      'LIVE_MAX_PENDING_PER_ADDRESS must be an integer from 1 to 1000000 (got "0")',
      'LIVE_MAX_CONNECTIONS (101) must not exceed HTTP_MAX_CONNECTIONS (100): live connections are connections like any other',
      'LIVE_MAX_WATCHED_IDS_PER_CLIENT (99) must be at least LIVE_MAX_IDS (100): else a subscription of the most ids could never start',
    ]);
  });
});
