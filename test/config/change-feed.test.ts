// CHANGE_FEED and CHANGE_FEED_DATABASE_URL: on by default whenever another
// process may write what this one serves (a shared cache, several workers, a
// load under any cache), and every bad
// value reported with what was expected.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

const problems = configProblems;

describe('change feed configuration', () => {
  it('auto: on with REDIS_URL, WORKERS > 1 or any cache (a load replaces what it holds), off for one process caching nothing', () => {
    expect(loadConfig({}).changeFeed).toBe(true);
    expect(loadConfig({ CACHE: 'off' }).changeFeed).toBe(false);
    expect(loadConfig({ CACHE: 'off', CDN_PURGE_URL: 'https://cdn.example/purge' }).changeFeed).toBe(true);
    expect(loadConfig({ CACHE: 'off', REDIS_URL: 'redis://cache:6379' }).changeFeed).toBe(true);
    expect(loadConfig({ CACHE: 'off', WORKERS: '2' }).changeFeed).toBe(true);
    expect(loadConfig({ CHANGE_FEED: 'auto', CACHE: 'off', WORKERS: '1' }).changeFeed).toBe(false);
    // Alone, its cache serves on while the feed reconnects; CHANGE_FEED=on says other instances write too.
    expect(loadConfig({}).soleWriter).toBe(true);
    expect(loadConfig({ CHANGE_FEED: 'on' }).soleWriter).toBe(false);
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379' }).soleWriter).toBe(false);
    expect(loadConfig({ WORKERS: '2' }).soleWriter).toBe(false);
    expect(loadConfig({ CHANGE_FEED: 'on' }).changeFeed).toBe(true);
    expect(loadConfig({ CHANGE_FEED: 'off', REDIS_URL: 'redis://cache:6379', WORKERS: '4' }).changeFeed).toBe(false);
    expect(loadConfig({}).changeFeedDatabaseUrl).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', CHANGE_FEED_DATABASE_URL: 'postgres://u:p@primary:5432/catalogue' }).changeFeedDatabaseUrl)
      .toBe('postgres://u:p@primary:5432/catalogue');
  });

  it('reports a bad value, a URL that is not Postgres, and a LISTEN URL with the feed off', () => {
    expect(problems({ CHANGE_FEED: 'yes' })).toEqual(['CHANGE_FEED must be one of auto, on, off (got "yes")']);
    expect(problems({ CHANGE_FEED: 'on', CHANGE_FEED_DATABASE_URL: 'redis://u:secret@x/1' })).toEqual(['CHANGE_FEED_DATABASE_URL must start with postgres:// or postgresql:// (got "redis://...")']);
    expect(problems({ CACHE: 'off', LIVE_SUBSCRIPTIONS: 'off', CHANGE_FEED_DATABASE_URL: 'postgres://primary/catalogue' })).toEqual([
      'CHANGE_FEED_DATABASE_URL is set but the change feed is off (CHANGE_FEED=auto, with CACHE=off and neither REDIS_URL, REDIS_SENTINELS, WORKERS > 1 nor CDN_PURGE_URL, LIVE_SUBSCRIPTIONS=off): set CHANGE_FEED=on or remove it',
    ]);
    // Live subscriptions listen there whatever the cache does.
    expect(problems({ CACHE: 'off', CHANGE_FEED_DATABASE_URL: 'postgres://primary/catalogue' })).toEqual([]);
  });
});

describe('local tier configuration (CACHE_LOCAL_MB)', () => {
  it('64 MB by default, 0 for none, in bytes', () => {
    expect(loadConfig({}).cacheLocalBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', CACHE_LOCAL_MB: '0' }).cacheLocalBytes).toBe(0);
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', CACHE_LOCAL_MB: '256' }).cacheLocalBytes).toBe(256 * 1024 * 1024);
    // Unset, it is simply unused where it cannot apply.
    expect(problems({ REDIS_URL: 'redis://cache:6379', CHANGE_FEED: 'off' })).toEqual([]);
  });

  it('reports a bad value, and a size set where no local tier can be kept fresh', () => {
    expect(problems({ REDIS_URL: 'redis://cache:6379', CACHE_LOCAL_MB: '-1' })).toEqual(['CACHE_LOCAL_MB must be an integer from 0 to 65536 (got "-1")']);
    expect(problems({ REDIS_URL: 'redis://cache:6379', CACHE_LOCAL_MB: '64MB' })).toEqual(['CACHE_LOCAL_MB must be an integer from 0 to 65536 (got "64MB")']);
    expect(problems({ CACHE_LOCAL_MB: '64' })).toEqual([
      'CACHE_LOCAL_MB is set but there is no Redis (REDIS_URL or REDIS_SENTINELS): without one the whole cache is in process already; remove it',
    ]);
    expect(problems({ REDIS_URL: 'redis://cache:6379', CHANGE_FEED: 'off', CACHE_LOCAL_MB: '64' })).toEqual([
      'CACHE_LOCAL_MB is set but the change feed is off (CHANGE_FEED=off): the local tier would not hear other instances\' writes; set CHANGE_FEED=on or CACHE_LOCAL_MB=0',
    ]);
    expect(problems({ REDIS_URL: 'redis://cache:6379', CHANGE_FEED: 'off', CACHE_LOCAL_MB: '0' })).toEqual([]);
  });
});

describe('cache admission (CACHE_ADMISSION)', () => {
  it('the doorkeeper by default with Redis, first-miss in process; any when set; a bad value reported', () => {
    expect(loadConfig({}).cacheAdmission).toBe('first-miss');
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379' }).cacheAdmission).toBe('doorkeeper');
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', CACHE_ADMISSION: 'first-miss' }).cacheAdmission).toBe('first-miss');
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', CACHE_ADMISSION: 'second-miss' }).cacheAdmission).toBe('second-miss');
    expect(loadConfig({ CACHE_ADMISSION: 'doorkeeper' }).cacheAdmission).toBe('doorkeeper');
    expect(loadConfig({ CACHE_ADMISSION: 'second-miss' }).cacheAdmission).toBe('second-miss');
    expect(problems({ CACHE_ADMISSION: 'second' })).toHaveLength(1);
    expect(problems({ CACHE_ADMISSION: 'second' })[0]).toContain('CACHE_ADMISSION');
  });
});
