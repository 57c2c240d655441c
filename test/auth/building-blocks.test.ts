// The pieces under the HTTP behaviour, where time and concurrency can be
// controlled: token-bucket arithmetic (the in-process limiter; the Redis script
// mirrors it and is checked end to end in rate-limits.test.ts), the key lookup
// cache, credentials parsing, and what happens when the limiter fails.
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/auth/api-keys.ts';
import { CONFLICTING_KEYS, presentedKey } from '../../src/auth/credentials.ts';
import { AccessControl, AddressRateLimited, Unauthenticated } from '../../src/auth/access.ts';
import { ApiKeyResolver, type ListedKey, SCAN_INTERVAL_MS } from '../../src/auth/key-resolver.ts';
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

describe('ApiKeyResolver negative cache', () => {
  const KEY = { id: 1, name: 'k', prefix: 'cat_abcdefgh', ratePerMinute: null };

  it('remembers unknown keys for their own TTL, apart from valid ones', async () => {
    let lookups = 0;
    const resolver = new ApiKeyResolver(async (hash) => { lookups++; return hash === hashApiKey('good') ? KEY : undefined; }, { ttlSeconds: 0.05, negativeTtlSeconds: 60 });
    await resolver.resolve('good');
    await resolver.resolve('bad');
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The valid key's answer is stale (looked up again); the unknown one is still remembered.
    expect(await resolver.resolve('good')).toEqual(KEY);
    expect(await resolver.resolve('bad')).toBeUndefined();
    expect(lookups).toBe(3);
  });

  it('is bounded, oldest first, and random keys never push out valid ones', async () => {
    let lookups = 0;
    const resolver = new ApiKeyResolver(async (hash) => { lookups++; return hash === hashApiKey('good') ? KEY : undefined; }, { ttlSeconds: 60, negativeTtlSeconds: 60, maxEntries: 2, maxNegativeEntries: 3 });
    await resolver.resolve('good');
    for (let i = 0; i < 1_000; i++) await resolver.resolve(`random-${i}`);
    expect(resolver.negativeEntries).toBe(3);
    expect(lookups).toBe(1_001);
    expect(await resolver.resolve('good')).toEqual(KEY);
    expect(await resolver.resolve('random-999')).toBeUndefined();
    expect(lookups).toBe(1_001);
    await resolver.resolve('random-0'); // forgotten: asked again
    expect(lookups).toBe(1_002);
  });

  it('tells a key that was valid at its last lookup from one never seen (check)', async () => {
    const resolver = new ApiKeyResolver(async (hash) => (hash === hashApiKey('good') ? KEY : undefined), { ttlSeconds: 0, negativeTtlSeconds: 60 });
    expect(resolver.check('good')).toMatchObject({ cached: false, knownValid: false });
    await resolver.resolve('good');
    // API_KEY_CACHE_SECONDS=0: asked every time, but known.
    expect(resolver.check('good')).toMatchObject({ cached: false, knownValid: true });
    await resolver.resolve('bad');
    expect(resolver.check('bad')).toEqual({ cached: true, key: undefined });
  });
});

describe('ApiKeyResolver scans for keys it has never seen', () => {
  const key = (id: number) => ({ id, name: `k${id}`, prefix: `cat_${id}`, ratePerMinute: null });
  /** A key table: what `list` returns, counting the scans. */
  function table(secrets: string[]) {
    const rows = new Map(secrets.map((secret, i) => [secret, key(i + 1)]));
    const state = { scans: 0, lookups: 0, rows };
    const list = async (limit: number): Promise<ListedKey[]> => {
      state.scans++;
      return [...rows].slice(0, limit).map(([secret, k]) => ({ hash: hashApiKey(secret), key: k }));
    };
    const find = async (hash: string) => { state.lookups++; return [...rows].find(([secret]) => hashApiKey(secret) === hash)?.[1]; };
    return { state, list, find };
  }

  it('decides any number of unknown keys with one scan per interval; a key created just before is found', async () => {
    const { state, list, find } = table(['old']);
    const resolver = new ApiKeyResolver(find, { ttlSeconds: 60, list });
    const guesses = Array.from({ length: 500 }, (_, i) => resolver.resolve(`guess-${i}`));
    expect(await Promise.all([resolver.resolve('old'), ...guesses])).toEqual([key(1), ...guesses.map(() => undefined)]);
    expect(state).toMatchObject({ scans: 1, lookups: 0 });
    // Created now: the next request waits for a scan that starts after it arrived.
    state.rows.set('new', key(2));
    const started = performance.now();
    expect(await resolver.resolve('new')).toEqual(key(2));
    expect(performance.now() - started).toBeLessThan(SCAN_INTERVAL_MS + 50);
    expect(state).toMatchObject({ scans: 2, lookups: 0 });
  });

  it('forgets a valid key a scan no longer lists (revoked)', async () => {
    const { state, list, find } = table(['a', 'b']);
    const resolver = new ApiKeyResolver(find, { ttlSeconds: 60, list });
    expect(await resolver.resolve('a')).toEqual(key(1));
    state.rows.delete('a');
    await resolver.resolve('unknown'); // a scan
    expect(resolver.check('a')).toMatchObject({ cached: false, knownValid: false });
  });

  it('with more active keys than it holds, looks unknown keys up one by one, charging each lookup first', async () => {
    const { state, list, find } = table(['a', 'b', 'c']);
    const resolver = new ApiKeyResolver(find, { ttlSeconds: 60, maxEntries: 2, list });
    let charged = 0;
    const check = resolver.check('c');
    expect(check.cached).toBe(false);
    if (check.cached) return;
    expect(await check.lookup(async () => { charged++; })).toEqual(key(3));
    expect([state.scans, state.lookups, charged]).toEqual([1, 1, 1]);
    // No scan for a minute: straight to the (charged) lookup.
    const again = resolver.check('d');
    if (again.cached) throw new Error('not cached');
    await expect(again.lookup(async () => { throw new Error('429'); })).rejects.toThrow('429');
    expect([state.scans, state.lookups]).toEqual([1, 1]);
  });
});

describe('isWellFormedApiKey', () => {
  it('accepts what generateApiKey makes and nothing else', () => {
    for (let i = 0; i < 100; i++) expect(isWellFormedApiKey(generateApiKey().secret)).toBe(true);
    const good = generateApiKey().secret;
    for (const bad of ['', 'cat_', 'cat_x', good.slice(0, -1), `${good}A`, good.replace('cat_', 'CAT_'), `${good.slice(0, -1)}=`, `${good.slice(0, -1)}+`, `${good.slice(0, -1)}é`, `${good.slice(0, -1)}\n`]) {
      expect(isWellFormedApiKey(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('AccessControl with keys that are not valid', () => {
  const KEY = { id: 7, name: 'k', prefix: 'cat_abcdefgh', ratePerMinute: null };
  function setup(anonymousPerMinute: number, keyChecksPerMinute = anonymousPerMinute) {
    const valid = generateApiKey().secret;
    const looked: string[] = [];
    const access = new AccessControl({
      resolver: new ApiKeyResolver(async (hash) => { looked.push(hash); return hash === hashApiKey(valid) ? KEY : undefined; }, { ttlSeconds: 60, negativeTtlSeconds: 60 }),
      limiter: new MemoryRateLimiter(),
      readsNeedKey: false,
      anonymousPerMinute,
      keyPerMinute: 100,
      keyChecksPerMinute,
      warn: () => {},
    });
    const identify = (key: string, address = '203.0.113.1') => access.identify({ authorization: `Bearer ${key}` }, address).then(
      (caller) => ({ status: 200, caller, error: undefined }),
      (error: unknown) => ({ status: error instanceof AddressRateLimited ? 429 : error instanceof Unauthenticated ? 401 : 500, caller: undefined, error: error as Error & { decision?: { remaining: number } } }),
    );
    return { access, valid, looked, identify };
  }

  it('refuses a malformed key without any lookup, and charges its address', async () => {
    const { looked, identify } = setup(2);
    const first = await identify('cat_short');
    expect(first.status).toBe(401);
    expect(first.error?.message).toBe('the API key is not valid (malformed: a key is "cat_" and 43 base64url characters)');
    expect(first.error?.decision?.remaining).toBe(1);
    expect((await identify('not-even-close')).status).toBe(401);
    expect((await identify('cat_short')).status).toBe(429);
  });

  it('refuses a Bearer credential of two tokens as malformed, not as an anonymous request', async () => {
    const { looked, identify } = setup(5);
    const refused = await identify(`${generateApiKey().secret} extra`);
    expect(refused.status).toBe(401);
    expect(refused.error?.message).toMatch(/^the API key is not valid \(malformed/);
    expect(looked).toHaveLength(0);
    expect(looked).toEqual([]);
  });

  it('charges unknown keys (looked up or remembered) to the address; valid keys spend nothing of it', async () => {
    const { access, valid, looked, identify } = setup(3);
    const unknown = generateApiKey().secret;
    expect((await identify(unknown)).status).toBe(401);
    expect((await identify(unknown)).status).toBe(401); // from the negative cache, charged all the same
    expect(looked).toHaveLength(1);
    expect((await identify(valid)).caller?.key).toEqual(KEY);
    expect((await identify(valid)).caller?.key).toEqual(KEY);
    expect((await identify(generateApiKey().secret)).status).toBe(401);
    expect((await identify(unknown)).status).toBe(429);
    // A valid key still works from that address, and another address is untouched.
    expect((await identify(valid)).status).toBe(200);
    expect((await identify(unknown, '203.0.113.2')).status).toBe(401);
    expect(await access.spend({ key: undefined, address: '203.0.113.2' }, 1)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('looks keys up within the address\'s key-check budget only (taken before the lookup)', async () => {
    const { valid, looked, identify } = setup(5);
    // The anonymous budget alone would allow 5 refusals; keys are also unique, so each would be a lookup.
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await identify(generateApiKey().secret)).status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    expect(looked.length).toBe(5);
    // A key never seen before is not looked up either while that budget is spent.
    const refused = await identify(valid);
    expect(refused.status).toBe(429);
    expect(refused.error?.message).toMatch(/^rate limit exceeded: 5 API key checks per minute per address \(this is 203\.0\.113\.1\)/);
    expect(looked.length).toBe(5);
  });

  it('bounds lookups by the key-check budget even where the anonymous budget is large (the default)', async () => {
    const { looked, identify } = setup(120_000, 3);
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await identify(generateApiKey().secret)).status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
    expect(looked.length).toBe(3);
    // Malformed keys need no lookup: refused (401) within the anonymous budget.
    expect((await identify('cat_short')).status).toBe(401);
  });
});

describe('presentedKey', () => {
  it.each([
    [{ authorization: 'Bearer cat_x' }, 'cat_x'],
    [{ authorization: 'bearer   cat_x ' }, 'cat_x'],
    [{ 'x-api-key': ' cat_y ' }, 'cat_y'],
    // Two different keys: neither is taken (access.ts refuses the request with a 400).
    [{ authorization: 'Bearer cat_x', 'x-api-key': 'cat_y' }, CONFLICTING_KEYS],
    [{ authorization: 'Bearer cat_x', 'x-api-key': ' cat_x' }, 'cat_x'],
    [{ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'cat_y' }, 'cat_y'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, undefined],
    // A Bearer credential that is not one token is presented (and refused as malformed), never ignored.
    [{ authorization: 'Bearer cat_x extra' }, 'cat_x extra'],
    [{ authorization: 'Bearer' }, ''],
    [{ authorization: 'Bearer ', 'x-api-key': 'cat_y' }, CONFLICTING_KEYS],
    [{ authorization: 'Bearerx cat_x' }, undefined],
    [{ 'x-api-key': '' }, undefined],
    [{}, undefined],
  ] as [Record<string, string>, string | typeof CONFLICTING_KEYS | undefined][])('%j -> %s', (headers, expected) => {
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
      keyChecksPerMinute: 1,
      warn: (message, error) => warnings.push(`${message}: ${(error as Error).message}`),
    });
    const caller = await access.identify({}, '203.0.113.1');
    expect(await access.spend(caller, 5)).toBeUndefined();
    expect(warnings).toEqual(['rate limiter unavailable (Redis down or slow): serving without a limit: Redis is reconnecting']);
  });
});
