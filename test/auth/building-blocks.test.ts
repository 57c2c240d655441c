// The pieces under the HTTP behaviour, where time and concurrency can be
// controlled: token-bucket arithmetic (the in-process limiter; the Redis script
// mirrors it and is checked end to end in rate-limits.test.ts), the key lookup
// cache, credentials parsing, and what happens when the limiter fails.
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-keys.ts';
import { presentedKey } from '../../src/auth/credentials.ts';
import { AccessControl } from '../../src/auth/access.ts';
import { ApiKeyResolver } from '../../src/auth/key-resolver.ts';
import { MemoryRateLimiter } from '../../src/ratelimit/memory-limiter.ts';

describe('MemoryRateLimiter', () => {
  it('allows a burst of the whole budget, refuses the rest, and refills at budget/60 per second', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ now: () => now });
    expect(await limiter.take('a', 50, 60)).toEqual({ allowed: true, limit: 60, remaining: 10, resetSeconds: 50, retryAfterSeconds: 0 });
    // 11 does not fit in 10: refused, nothing taken, one more unit arrives in a second.
    expect(await limiter.take('a', 11, 60)).toEqual({ allowed: false, limit: 60, remaining: 10, resetSeconds: 50, retryAfterSeconds: 1 });
    expect((await limiter.take('a', 10, 60)).remaining).toBe(0);
    now += 2_500;
    expect(await limiter.take('a', 2, 60)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('a', 1, 60)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now += 120_000;
    expect(await limiter.take('a', 1, 60)).toMatchObject({ allowed: true, remaining: 59 }); // capped at the budget
    expect(await limiter.take('b', 60, 60)).toMatchObject({ allowed: true, remaining: 0 }); // buckets are separate
  });

  it('refuses a cost above the whole budget whatever is left', async () => {
    const limiter = new MemoryRateLimiter();
    const refused = await limiter.take('a', 61, 60);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(60);
  });

  it('forgets the least recently used buckets past its bound (which only hands back a full bucket)', async () => {
    const limiter = new MemoryRateLimiter({ maxBuckets: 2 });
    await limiter.take('a', 5, 5);
    await limiter.take('b', 5, 5);
    await limiter.take('a', 0, 5);
    await limiter.take('c', 5, 5);
    expect((await limiter.take('a', 1, 5)).allowed).toBe(false);
    expect((await limiter.take('b', 1, 5)).allowed).toBe(true);
  });
});

describe('ApiKeyResolver', () => {
  const KEY = { id: 1, name: 'k', prefix: 'cat_abcdefgh', ratePerMinute: null };

  it('looks a key up once per TTL, shares concurrent lookups, and remembers unknown keys too', async () => {
    const lookups: string[] = [];
    const resolver = new ApiKeyResolver(async (hash) => {
      lookups.push(hash);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return hash === hashApiKey('good') ? KEY : undefined;
    }, { ttlSeconds: 60 });
    expect(await Promise.all([resolver.resolve('good'), resolver.resolve('good'), resolver.resolve('bad')])).toEqual([KEY, KEY, undefined]);
    expect(await resolver.resolve('good')).toEqual(KEY);
    expect(await resolver.resolve('bad')).toBeUndefined();
    expect(lookups).toEqual([hashApiKey('good'), hashApiKey('bad')]);
  });

  it('asks again once the TTL is over (how revocation reaches a running server)', async () => {
    let revoked = false;
    const resolver = new ApiKeyResolver(async () => (revoked ? undefined : KEY), { ttlSeconds: 0.05 });
    expect(await resolver.resolve('good')).toEqual(KEY);
    revoked = true;
    expect(await resolver.resolve('good')).toEqual(KEY);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await resolver.resolve('good')).toBeUndefined();
  });

  it('keeps at most maxEntries answers', async () => {
    let lookups = 0;
    const resolver = new ApiKeyResolver(async () => { lookups++; return undefined; }, { ttlSeconds: 60, maxEntries: 2 });
    for (const secret of ['a', 'b', 'c', 'a']) await resolver.resolve(secret);
    expect(lookups).toBe(4); // 'a' was pushed out by 'c'
  });
});

describe('presentedKey', () => {
  it.each([
    [{ authorization: 'Bearer cat_x' }, 'cat_x'],
    [{ authorization: 'bearer   cat_x ' }, 'cat_x'],
    [{ 'x-api-key': ' cat_y ' }, 'cat_y'],
    [{ authorization: 'Bearer cat_x', 'x-api-key': 'cat_y' }, 'cat_x'],
    [{ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'cat_y' }, 'cat_y'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, undefined],
    [{ 'x-api-key': '' }, undefined],
    [{}, undefined],
  ])('%j -> %s', (headers, expected) => {
    expect(presentedKey(headers)).toBe(expected);
  });
});

describe('AccessControl with a failing limiter', () => {
  it('serves (nothing counted) and warns, instead of failing the request', async () => {
    const warnings: string[] = [];
    const access = new AccessControl({
      resolver: new ApiKeyResolver(async () => undefined, { ttlSeconds: 0 }),
      limiter: { kind: 'redis', take: async () => { throw new Error('Redis is reconnecting'); }, close: async () => {} },
      readsNeedKey: false,
      anonymousPerMinute: 1,
      keyPerMinute: 1,
      warn: (message, error) => warnings.push(`${message}: ${(error as Error).message}`),
    });
    const caller = await access.identify({}, '203.0.113.1');
    expect(await access.spend(caller, 5)).toBeUndefined();
    expect(warnings).toEqual(['rate limiter unavailable (Redis down or slow): serving without a limit: Redis is reconnecting']);
  });
});
