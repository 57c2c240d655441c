// REDIS_URL or REDIS_SENTINELS (with REDIS_SENTINEL_MASTER and the
// passwords): one Redis target, every bad value reported with what was
// expected, and no password echoed.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems as problems } from '../support/config-problems.ts';

describe('Redis configuration', () => {
  it('is one server by URL, the master Sentinels name, or none', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379/2' }).redis).toEqual({ url: 'redis://cache:6379/2' });
    expect(loadConfig({ REDIS_SENTINELS: 'sentinel-0:26379, 10.0.0.7:26380,[::1]:26381' }).redis).toEqual({
      sentinels: [{ host: 'sentinel-0', port: 26379 }, { host: '10.0.0.7', port: 26380 }, { host: '::1', port: 26381 }],
      masterName: 'mymaster',
    });
    expect(loadConfig({ REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'catalogue', REDIS_PASSWORD: 'data-secret', REDIS_SENTINEL_PASSWORD: 'sentinel-secret' }).redis).toEqual({
      sentinels: [{ host: 's', port: 26379 }], masterName: 'catalogue', password: 'data-secret', sentinelPassword: 'sentinel-secret',
    });
    // Sentinels mean a shared cache: the change feed is on by default, as with REDIS_URL.
    expect(loadConfig({ REDIS_SENTINELS: 's:26379' }).changeFeed).toBe(true);
  });

  it('reports bad entries by position, both forms at once, and Sentinel settings without Sentinels', () => {
    expect(problems({ REDIS_SENTINELS: 's:26379,s2,s3:99999' })).toEqual([
      'REDIS_SENTINELS entry 2 of 3 must be host:port, e.g. redis-sentinel-0:26379 or [::1]:26379 (got "s2")',
      'REDIS_SENTINELS entry 3 of 3 must be host:port, e.g. redis-sentinel-0:26379 or [::1]:26379 (got "s3:99999")',
    ]);
    expect(problems({ REDIS_SENTINELS: 's:26379', REDIS_URL: 'redis://cache:6379' })).toEqual([
      'REDIS_URL and REDIS_SENTINELS are both set: set REDIS_URL for one Redis server, or REDIS_SENTINELS (with REDIS_SENTINEL_MASTER) for a master Sentinel fails over, not both',
    ]);
    expect(problems({ REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'my master' })).toEqual([
      `REDIS_SENTINEL_MASTER must be the master's name in the Sentinels' configuration: letters, digits, '.', '_' and '-' (got "my master")`,
    ]);
    expect(problems({ REDIS_URL: 'redis://cache:6379', REDIS_SENTINEL_MASTER: 'catalogue', REDIS_PASSWORD: 'hunter2' })).toEqual([
      'REDIS_SENTINEL_MASTER is set but REDIS_SENTINELS is not (it applies to Redis found through Sentinels)',
      'REDIS_PASSWORD is set but REDIS_SENTINELS is not (it applies to Redis found through Sentinels; with REDIS_URL, put the password in the URL)',
    ]);
    const reported = problems({ REDIS_SENTINELS: 's:26379', REDIS_PASSWORD: 'pass word' });
    expect(reported).toEqual(['REDIS_PASSWORD must be at least 1 visible ASCII characters without spaces (got 9 characters, some of them not allowed)']);
  });
});
