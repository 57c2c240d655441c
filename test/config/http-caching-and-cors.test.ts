// CORS and HTTP caching settings: defaults, and every bad value reported with its name.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems as problems } from '../support/config-problems.ts';

describe('CORS settings', () => {
  it('defaults: any origin, no credentials, preflights cached 10 minutes', () => {
    expect(loadConfig({}).cors).toEqual({ origins: '*', credentials: false, maxAgeSeconds: 600 });
  });

  it('an allowlist, off, credentials for listed origins', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://shop.example.com, http://localhost:3000', CORS_CREDENTIALS: 'on' }).cors)
      .toEqual({ origins: ['https://shop.example.com', 'http://localhost:3000'], credentials: true, maxAgeSeconds: 600 });
    expect(loadConfig({ CORS_ORIGINS: 'off' }).cors.origins).toBe(false);
  });

  it('names every bad value', () => {
    expect(problems({ CORS_ORIGINS: 'https://shop.example.com/, shop.example.com, ftp://x.example' })).toEqual([
      'CORS_ORIGINS must be *, off, or comma-separated origins such as https://shop.example.com or http://localhost:3000 (scheme, host and port only, no path or trailing slash); not an origin: "https://shop.example.com/", "shop.example.com", "ftp://x.example"',
    ]);
    expect(problems({ CORS_CREDENTIALS: 'on' })).toEqual([
      'CORS_CREDENTIALS=on needs CORS_ORIGINS to list the origins allowed to send credentials (it is *; browsers refuse credentials with *)',
    ]);
    expect(problems({ CORS_MAX_AGE_SECONDS: 'a day' })).toEqual(['CORS_MAX_AGE_SECONDS must be an integer from 0 to 86400 (got "a day")']);
  });
});

describe('HTTP caching settings', () => {
  it('defaults: revalidate every time (no max-age), no purge hook', () => {
    expect(loadConfig({}).httpCache).toEqual({ maxAgeSeconds: 0, sharedMaxAgeSeconds: 0, purgeUrl: undefined, purgeToken: undefined });
  });

  it('names every bad value', () => {
    expect(problems({ HTTP_CACHE_MAX_AGE_SECONDS: '-1', HTTP_CACHE_SHARED_MAX_AGE_SECONDS: 'forever', CDN_PURGE_URL: 'ftp://cdn.example/purge' })).toEqual([
      'HTTP_CACHE_MAX_AGE_SECONDS must be an integer from 0 to 31536000 (got "-1")',
      'HTTP_CACHE_SHARED_MAX_AGE_SECONDS must be an integer from 0 to 31536000 (got "forever")',
      'CDN_PURGE_URL must start with http:// or https:// (got "ftp://...")',
    ]);
    expect(problems({ CDN_PURGE_TOKEN: 'secret-token' })).toEqual(['CDN_PURGE_TOKEN is set but CDN_PURGE_URL is not']);
  });
});
