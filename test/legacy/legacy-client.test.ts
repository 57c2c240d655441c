// The legacy client against a real HTTP server that counts what arrives.
// Everything is measured at the server: that is where "never overload" counts.
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as wait } from 'node:timers/promises';
import { LegacyCircuitOpenError, LegacyClientClosedError, LegacyUnavailableError } from '../../src/legacy/errors.ts';
import { LegacyClient } from '../../src/legacy/legacy-client.ts';
import type { LegacyClientOptions } from '../../src/legacy/options.ts';
import { busiestWindow, type CountingServer, type Handler, startCountingServer } from './counting-server.ts';

let server: CountingServer | undefined;
let client: LegacyClient | undefined;

afterEach(async () => {
  client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(handler: Handler, options: Partial<LegacyClientOptions> = {}) {
  server = await startCountingServer(handler);
  client = new LegacyClient({ baseUrl: server.url, maxRps: 1000, backoffBaseMs: 20, timeoutMs: 2000, ...options });
  return { server, client };
}

/** Settles every promise, keeping values and errors, so a failing test shows all of them. */
function settle<T>(promises: Promise<T>[]) {
  return Promise.allSettled(promises);
}

describe('the request budget, measured at the server', () => {
  it('never lets more than maxRps arrive in any 1 s window, nor more than maxConcurrency at once', async () => {
    const { server, client } = await setup(() => ({ status: 200, body: '[]', delayMs: Math.floor(Math.random() * 30) }), { maxRps: 20, maxConcurrency: 4 });
    const calls = Array.from({ length: 200 }, (_, i) => client.get(`/products/${i + 1}`, { priority: i % 10 === 0 ? 'interactive' : 'background' }));
    const outcome = settle(calls);
    await wait(2300);
    expect(client.stats().budget.queued.background).toBeGreaterThan(100); // still holding most back
    client.close();
    const results = await outcome;

    const answered = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof LegacyClientClosedError).length;
    expect(answered + refused).toBeGreaterThanOrEqual(196); // the few in flight at close() may fail otherwise
    expect(busiestWindow(server.arrivals)).toBe(20); // the ceiling is reached, never passed
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
    // Close to the ceiling: 20 per window, less the time each one takes to answer.
    expect(server.arrivals.length).toBeGreaterThanOrEqual(40);
    expect(server.arrivals.length).toBeLessThanOrEqual(60);
  });

  it('counts starts, not answers: a service taking 400 ms an answer gets close to maxRps, never more', async () => {
    const { server, client } = await setup(() => ({ status: 200, body: '{}', delayMs: 400 }), { maxRps: 2, maxConcurrency: 1 });
    await Promise.all(Array.from({ length: 9 }, (_, i) => client.get(`/products/${i + 1}`)));
    const times = server.arrivals.map((a) => a.at);
    expect(busiestWindow(server.arrivals)).toBe(2);
    // Two requests per window and its slack: 8 intervals take about 4 × 1.05 s. Counted from the
    // answers (the start of each answer + 1 s) they would take 4 × 1.4 s.
    const perSecond = (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
    expect(perSecond).toBeGreaterThanOrEqual(0.9 * 2);
    expect(server.maxInFlight).toBe(1);
  });

  it('sends one request at a time by default', async () => {
    const { server, client } = await setup(() => ({ status: 200, body: '{}', delayMs: 5 }));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => client.get(`/products/${i + 1}`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(server.arrivals).toHaveLength(20);
    expect(server.maxInFlight).toBe(1);
  });

  it('sends an interactive request queued behind 50 background ones next', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { server, client } = await setup(async (_, index) => {
      if (index === 0) await gate;
      return { status: 200, body: '{}' };
    });
    const first = client.get('/products?page=1');
    while (server.arrivals.length === 0) await wait(5);
    const background = Array.from({ length: 50 }, (_, i) => client.get(`/products/${i + 1}`, { priority: 'background' }));
    const interactive = client.get('/products/999', { priority: 'interactive' });
    open();
    await Promise.all([first, interactive, ...background]);
    expect(server.arrivals.map((a) => a.url).slice(0, 3)).toEqual(['/products?page=1', '/products/999', '/products/1']);
    expect(server.arrivals).toHaveLength(52);
  });
});

describe('throttling', () => {
  it('pauses the whole client for a 429 Retry-After: nothing arrives before it', async () => {
    const { server, client } = await setup((arrival, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: '{"message":"slow down"}' } : { status: 200, body: `"${arrival.url}"` }));
    const throttled = client.get('/products/1');
    const queued = client.get('/products/2', { priority: 'interactive' });
    await wait(100);
    const later = client.send('POST', '/products', '{"name":"x"}', { 'content-type': 'application/json' });
    const [a, b, c] = await Promise.all([throttled, queued, later]);
    expect([a.status, a.attempts, b.status, c.status]).toEqual([200, 2, 200, 200]);

    const answered429 = server.answeredAt.get(0)!;
    expect(server.arrivals).toHaveLength(4);
    for (const arrival of server.arrivals.slice(1)) expect(arrival.at).toBeGreaterThanOrEqual(answered429 + 1000);
    expect(client.stats()).toMatchObject({ pauses: 1, retries: 1, outcomes: { throttled: 1, success: 3 } });
  });

  it('honours a 503 Retry-After given as an HTTP-date, and sends the write again after it', async () => {
    let retryAt = 0;
    const { server, client } = await setup((_, index) => {
      if (index > 0) return { status: 201, body: '{"id":1}' };
      const date = new Date(Date.now() + 1500).toUTCString(); // whole seconds: 0.5 to 1.5 s from now
      retryAt = Date.parse(date);
      return { status: 503, headers: { 'retry-after': date } };
    });
    const created = await client.send('POST', '/products', '{"name":"x"}');
    expect([created.status, created.attempts]).toEqual([201, 2]);
    expect(server.arrivals).toHaveLength(2);
    expect(server.arrivals[1]!.wall).toBeGreaterThanOrEqual(retryAt);
  });

  it('returns the 429 when Retry-After is longer than a call may wait, and stays paused', async () => {
    const { server, client } = await setup(() => ({ status: 429, headers: { 'retry-after': '3' } }), { retryAfterMaxWaitMs: 1000 });
    const answer = await client.get('/products');
    expect([answer.status, answer.headers['retry-after']]).toEqual([429, '3']);
    expect(client.stats().budget.pausedUntil).toBeDefined();
    const next = client.get('/products', { priority: 'interactive' });
    await wait(300);
    expect(server.arrivals).toHaveLength(1);
    client.close();
    await expect(next).rejects.toBeInstanceOf(LegacyClientClosedError);
  });
});

describe('retries', () => {
  it('retries a GET on 500s with exponential backoff and full jitter, then returns the success', async () => {
    const randoms = [0.5, 0.75];
    const { server, client } = await setup((_, index) => (index < 2 ? { status: 500, body: 'boom' } : { status: 200, body: '{"id":1}' }), {
      backoffBaseMs: 200,
      random: () => randoms.shift()!,
    });
    const answer = await client.get('/products/1');
    expect([answer.status, answer.attempts, answer.json()]).toEqual([200, 3, { id: 1 }]);
    // Delays: 0.5 × 200 = 100 ms, then 0.75 × 400 = 300 ms.
    const [first, second, third] = server.arrivals.map((a) => a.at) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(100);
    expect(second - first).toBeLessThan(200);
    expect(third - second).toBeGreaterThanOrEqual(300);
    expect(third - second).toBeLessThan(400);
    expect(randoms).toEqual([]);
    expect(client.stats()).toMatchObject({ sent: 3, retries: 2, outcomes: { serverError: 2, success: 1 } });
  });

  it('returns the last 5xx after maxAttempts', async () => {
    const { server, client } = await setup(() => ({ status: 502, body: 'bad gateway' }), { maxAttempts: 3 });
    const answer = await client.get('/products/1');
    expect([answer.status, answer.body, answer.attempts]).toEqual([502, 'bad gateway', 3]);
    expect(server.arrivals).toHaveLength(3);
  });

  it('retries a GET that timed out', async () => {
    const { server, client } = await setup(() => 'hang', { timeoutMs: 100, maxAttempts: 3 });
    const error = await client.get('/products/1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LegacyUnavailableError);
    expect(error).toMatchObject({ kind: 'timeout', attempts: 3 });
    expect(server.arrivals).toHaveLength(3);
  });

  it('never sends a write again once it may have arrived: not after a timeout, not after a 500', async () => {
    const { server, client } = await setup((arrival) => (arrival.method === 'POST' ? 'hang' : { status: 500, body: '{"message":"oops"}' }), { timeoutMs: 150, maxAttempts: 4 });
    const error = await client.send('POST', '/products', '{"name":"x"}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LegacyUnavailableError);
    expect(error).toMatchObject({ kind: 'timeout', maybeSent: true, attempts: 1 });
    const failed = await client.send('PUT', '/products/1', '{"name":"y"}');
    expect([failed.status, failed.body, failed.attempts]).toEqual([500, '{"message":"oops"}', 1]);
    await wait(500); // time for any retry to show up
    expect(server.arrivals.map((a) => a.method)).toEqual(['POST', 'PUT']);
  });

  it('sends a write again when it never left: the connection was refused', async () => {
    const { client: closedOne } = await setup(() => ({ status: 200 }));
    await server!.close();
    const error = await closedOne.send('DELETE', '/products/1').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', maybeSent: false, attempts: 4 });
  });
});

describe('answers passed through', () => {
  it('returns a 4xx as is, byte for byte, without retrying, with the configured headers sent', async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xc3, 0xa9, 0xff, 0x22, 0x7d]); // {"m":"é\xff"}
    const { server, client } = await setup(() => ({ status: 404, body: bytes, headers: { 'x-legacy': 'yes' } }), { headers: { Authorization: 'Token abc' } });
    const answer = await client.get('/products/42/styles');
    expect(answer.status).toBe(404);
    expect(answer.bytes.equals(bytes)).toBe(true);
    expect(answer.headers['x-legacy']).toBe('yes');
    expect(server.arrivals).toHaveLength(1);
    expect(server.arrivals[0]!.headers.authorization).toBe('Token abc');
    expect(client.stats()).toMatchObject({ outcomes: { clientError: 1 }, breaker: { consecutiveFailures: 0 } });
    expect(client.stats().lastSuccessAt).toBeGreaterThan(Date.now() - 5000);
  });

  it('passes a write body through unchanged and returns a 400 with its message', async () => {
    const { server, client } = await setup(() => ({ status: 400, body: '{"message":"name is required"}' }));
    const body = '{"slogan":"ünïcode ✓"}';
    const answer = await client.send('POST', '/products', body, { 'content-type': 'application/json' });
    expect([answer.status, answer.json()]).toEqual([400, { message: 'name is required' }]);
    expect(server.arrivals[0]!.body.toString('utf8')).toBe(body);
    expect(server.arrivals[0]!.headers['content-type']).toBe('application/json');
  });

  it('keeps the base URL path', async () => {
    const { server } = await setup(() => ({ status: 200, body: '[]' }));
    client!.close();
    client = new LegacyClient({ baseUrl: `${server.url}/api/`, maxRps: 1000 });
    await client.get('/products?page=2&count=3');
    expect(server.arrivals[0]!.url).toBe('/api/products?page=2&count=3');
    await expect(client.get('//evil.test/x')).rejects.toThrow(TypeError);
  });
});

describe('the circuit breaker', () => {
  it('opens after K failures, fails fast without sending, probes after the cool-down, closes on success', async () => {
    let healthy = false;
    const { server, client } = await setup(() => (healthy ? { status: 200, body: '{}' } : { status: 500 }), {
      maxAttempts: 1,
      maxConcurrency: 3,
      breakerFailureThreshold: 3,
      breakerCooldownMs: 300,
      breakerMaxCooldownMs: 1000,
    });
    for (let i = 0; i < 3; i++) expect((await client.get('/products/1')).status).toBe(500);
    expect(client.breakerState).toBe('open');

    const fast = await client.send('POST', '/products', '{}').catch((e: unknown) => e);
    expect(fast).toBeInstanceOf(LegacyCircuitOpenError);
    expect((fast as LegacyCircuitOpenError).retryAfterMs).toBeGreaterThan(200);
    expect(server.arrivals).toHaveLength(3);

    await wait(320);
    expect(client.breakerState).toBe('half-open');
    expect((await client.get('/products/1')).status).toBe(500); // the probe fails
    expect(server.arrivals).toHaveLength(4);
    expect(client.stats().breaker).toMatchObject({ state: 'open', cooldownMs: 600 });

    await wait(320);
    await expect(client.get('/products/1')).rejects.toBeInstanceOf(LegacyCircuitOpenError); // longer cool-down
    expect(server.arrivals).toHaveLength(4);

    await wait(300);
    healthy = true;
    const calls = await settle([client.get('/products/1'), client.get('/products/2'), client.get('/products/3')]);
    // One probe went out; the others were refused while it was in flight.
    expect(calls.map((c) => (c.status === 'fulfilled' ? c.value.status : (c.reason as Error).name))).toEqual([200, 'LegacyCircuitOpenError', 'LegacyCircuitOpenError']);
    expect(server.arrivals).toHaveLength(5);
    expect(client.breakerState).toBe('closed');
    expect((await client.get('/products/2')).status).toBe(200);
    expect(client.stats()).toMatchObject({
      sent: 6,
      failedFast: 4,
      outcomes: { serverError: 4, success: 2 },
      breaker: { state: 'closed', transitions: { opened: 2, halfOpened: 2, closed: 1 } },
    });
  });

  it('lets no queued request out between the K-th failure and the opening', async () => {
    const { server, client } = await setup(() => ({ status: 500 }), { maxAttempts: 1, breakerFailureThreshold: 3, breakerCooldownMs: 10_000, breakerMaxCooldownMs: 10_000 });
    const calls = await settle(Array.from({ length: 10 }, (_, i) => client.get(`/products/${i + 1}`)));
    expect(calls.filter((c) => c.status === 'rejected' && c.reason instanceof LegacyCircuitOpenError)).toHaveLength(7);
    expect(server.arrivals).toHaveLength(3);
    expect(client.stats()).toMatchObject({ sent: 3, failedFast: 7, budget: { inFlight: 0, queued: { background: 0 } } });
  });

  it('counts timeouts as failures', async () => {
    const { server, client } = await setup(() => 'hang', { timeoutMs: 50, maxAttempts: 2, breakerFailureThreshold: 2, breakerCooldownMs: 10_000, breakerMaxCooldownMs: 10_000 });
    await expect(client.get('/products/1')).rejects.toBeInstanceOf(LegacyUnavailableError);
    expect(client.breakerState).toBe('open');
    await expect(client.get('/products/1')).rejects.toBeInstanceOf(LegacyCircuitOpenError);
    expect(server.arrivals).toHaveLength(2);
  });
});
