// The legacy simulator behaves as the published service: one request at a
// time behind a fixed overhead (3 concurrent requests take 3x one), random
// 5xx / 429 / slow answers at the configured rates (seeded), a count of every
// request, outages, and admin changes behind the sidecar's back visible on the
// next read. Overheads are a few tens of ms to keep this fast.
import { afterEach, describe, expect, it } from 'vitest';
import { type LegacySimulator, type LegacySimulatorOptions, startLegacySimulator } from '../../src/legacy-sim/server.ts';

const started: LegacySimulator[] = [];
async function simulator(options: LegacySimulatorOptions): Promise<LegacySimulator> {
  const sim = await startLegacySimulator({ products: 200, ...options });
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

async function timed(url: string) {
  const start = performance.now();
  const response = await fetch(url);
  await response.text();
  return { status: response.status, ms: performance.now() - start };
}

// JSON answers, checked by the assertions.
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

const admin = async (sim: LegacySimulator, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${sim.url}${path}`, {
    method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
};

describe('one request at a time behind a fixed overhead', () => {
  it('one request takes the overhead; 3 concurrent ones take 3x as long, one after the other; never 2 handled at once', async () => {
    const overhead = 60;
    const sim = await simulator({ overheadMs: overhead });
    await admin(sim, 'GET', '/__sim/stats'); // the client's first connection, outside the measurement
    const one = await timed(`${sim.url}/products/1`);
    expect(one.status).toBe(200);
    expect(one.ms).toBeGreaterThanOrEqual(overhead - 2);
    expect(one.ms).toBeLessThan(overhead + 250); // generous: a loaded test machine

    const start = performance.now();
    const three = await Promise.all([timed(`${sim.url}/products/1`), timed(`${sim.url}/products/2/styles`), timed(`${sim.url}/products?count=10`)]);
    const total = performance.now() - start;
    expect(total).toBeGreaterThanOrEqual(3 * overhead - 5);
    expect(total).toBeLessThan(3 * overhead + 250);
    expect(three.map((t) => t.status)).toEqual([200, 200, 200]);
    // As the simulator saw them: answered one overhead after another (timers are never early).
    const answered = sim.requests().slice(-3).map((entry) => Date.parse(entry.receivedAt) + entry.ms!).sort((a, b) => a - b);
    expect(answered[1]! - answered[0]!).toBeGreaterThanOrEqual(overhead - 1);
    expect(answered[2]! - answered[1]!).toBeGreaterThanOrEqual(overhead - 1);

    const stats = sim.stats();
    expect(stats.maxConcurrent).toBe(1);
    expect(stats.maxInFlight).toBe(3);
    expect(stats.active).toBe(0);
    expect(stats.inFlight).toBe(0);
  });

  it('admin endpoints are neither queued nor delayed nor counted', async () => {
    const sim = await simulator({ overheadMs: 1_000 });
    let slowDone = false;
    const slow = fetch(`${sim.url}/products/1`).then((r) => r.text()).finally(() => { slowDone = true; });
    const stats = await admin(sim, 'GET', '/__sim/stats');
    // Answered while the product request still waits out its overhead: not queued behind it.
    expect(slowDone).toBe(false);
    expect(stats.body).toMatchObject({ received: 1, inFlight: 1 });
    expect((await admin(sim, 'GET', '/__sim/products/1')).status).toBe(200);
    await slow;
    expect(sim.stats().received).toBe(1);
  });

  it('the overhead can be changed at run time', async () => {
    const sim = await simulator({ overheadMs: 0 });
    expect((await admin(sim, 'POST', '/__sim/faults', { overheadMs: 80 })).body.faults.overheadMs).toBe(80);
    expect((await timed(`${sim.url}/products/1`)).ms).toBeGreaterThanOrEqual(78);
    expect(await admin(sim, 'POST', '/__sim/faults', { overheadMs: -1 })).toEqual({ status: 400, body: { error: 'overheadMs: must be a whole number from 0 to 600000' } });
    expect((await admin(sim, 'POST', '/__sim/faults', { errorRate: 0.7, throttleRate: 0.7 })).status).toBe(400);
  });

  it('a wait per item returned comes on top of the overhead: a listing of 40 takes 40 of them, a product 1, an error none', async () => {
    // Large beside a loaded host's scheduling delays: an error's answer must come in under one item's wait.
    const perItem = 25;
    const sim = await simulator({ overheadMs: 10, perItemMs: perItem });
    await admin(sim, 'GET', '/__sim/stats'); // the client's first connection, outside the measurement
    const listing = await timed(`${sim.url}/products?count=40`);
    expect(listing.ms).toBeGreaterThanOrEqual(10 + 40 * perItem - 2);
    const related = sim.catalogue.relatedOf(sim.catalogue.get(1)!).length;
    const styles = sim.catalogue.get(1)!.styles.length;
    // As the simulator measured them (receipt to answer): below one more item of slack each.
    await timed(`${sim.url}/products/1`);
    await timed(`${sim.url}/products/1/styles`);
    await timed(`${sim.url}/products/1/related`);
    await timed(`${sim.url}/products/999999`);
    const [detail, stylesAnswer, relatedAnswer, missing] = sim.requests().slice(-4).map((entry) => entry.ms!);
    expect(detail).toBeGreaterThanOrEqual(10 + perItem - 1);
    expect(stylesAnswer).toBeGreaterThanOrEqual(10 + styles * perItem - 1);
    expect(relatedAnswer).toBeGreaterThanOrEqual(10 + related * perItem - 1);
    expect(missing).toBeLessThan(10 + perItem);
    expect((await admin(sim, 'POST', '/__sim/faults', { perItemMs: 0.5 })).body.faults.perItemMs).toBe(0.5);
    expect(await admin(sim, 'POST', '/__sim/faults', { perItemMs: -1 })).toEqual({ status: 400, body: { error: 'perItemMs: must be a number from 0 to 60000' } });
  });
});

describe('counters', () => {
  it('count every request the legacy port receives, by route and status, whatever the answer', async () => {
    const sim = await simulator({ overheadMs: 0 });
    const paths: [string, string][] = [
      ['GET', '/products'], ['GET', '/products?count=hello'], ['GET', '/products/1'], ['GET', '/products/999999'],
      ['GET', '/products/1/styles'], ['GET', '/products/1/styles'], ['GET', '/products/x/related'], ['GET', '/nowhere'],
      ['PUT', '/products/2'], ['DELETE', '/products/3'], ['POST', '/products'],
    ];
    await Promise.all(paths.map(([method, path]) => fetch(`${sim.url}${path}`, { method }).then((r) => r.text())));
    const stats = (await admin(sim, 'GET', '/__sim/stats')).body;
    expect(stats.received).toBe(paths.length);
    expect(stats.byRoute).toEqual({
      'GET /products': 2, 'GET /products/:product_id': 2, 'GET /products/:product_id/styles': 2, 'GET /products/:product_id/related': 1,
      'POST /products': 1, 'PUT /products/:product_id': 1, 'DELETE /products/:product_id': 1, other: 1,
    });
    expect(stats.byStatus).toEqual({ 200: 4, 204: 1, 400: 4, 404: 2 });
    expect(stats.writes).toBe(1);
    expect(stats.maxConcurrent).toBe(1);
    const log = (await admin(sim, 'GET', '/__sim/requests')).body as { url: string; status: number }[];
    expect(log).toHaveLength(paths.length);
    expect(log.map((e) => e.url).sort()).toEqual(paths.map(([, p]) => p).sort());

    expect((await admin(sim, 'POST', '/__sim/reset-stats')).body).toMatchObject({ received: 0, byStatus: {}, maxConcurrent: 0 });
    expect((await admin(sim, 'GET', '/__sim/requests')).body).toEqual([]);
  });
});

describe('faults', () => {
  async function statuses(sim: LegacySimulator, n: number) {
    const out: { status: number; retryAfter: string | null; fault: string | null }[] = [];
    for (let i = 0; i < n; i++) {
      const response = await fetch(`${sim.url}/products/${1 + (i % 50)}`);
      await response.text();
      out.push({ status: response.status, retryAfter: response.headers.get('retry-after'), fault: response.headers.get('x-legacy-sim-fault') });
    }
    return out;
  }

  it('random 5xx, 429 (with Retry-After) and slow answers at about the configured rates, the same sequence for the same seed', async () => {
    const options = { overheadMs: 0, errorRate: 0.2, throttleRate: 0.1, slowRate: 0.1, slowMs: 1, retryAfterSeconds: 2, faultSeed: 7 };
    const sim = await simulator(options);
    const answers = await statuses(sim, 400);
    const errors = answers.filter((a) => a.status >= 500);
    const throttled = answers.filter((a) => a.status === 429);
    expect(errors.length / 400).toBeGreaterThan(0.15);
    expect(errors.length / 400).toBeLessThan(0.25);
    expect(throttled.length / 400).toBeGreaterThan(0.06);
    expect(throttled.length / 400).toBeLessThan(0.14);
    for (const e of errors) expect([500, 502, 503, 504]).toContain(e.status);
    expect(new Set(errors.map((e) => e.status)).size).toBeGreaterThan(1);
    for (const t of throttled) expect(t.retryAfter).toBe('2');
    const stats = sim.stats();
    expect(stats.faults.error).toBe(errors.length);
    expect(stats.faults.throttle).toBe(throttled.length);
    expect(stats.faults.slow / 400).toBeGreaterThan(0.06);
    expect(stats.faults.slow / 400).toBeLessThan(0.14);
    expect(stats.received).toBe(400);

    const again = await simulator(options);
    expect((await statuses(again, 100)).map((a) => a.status)).toEqual(answers.slice(0, 100).map((a) => a.status));
  });

  it('a slow answer waits slowMs more; a faulted write is not applied', async () => {
    const sim = await simulator({ overheadMs: 0, slowRate: 1, slowMs: 120 });
    const slow = await timed(`${sim.url}/products/1`);
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(118);
    sim.setFaults({ slowRate: 0, errorRate: 1 });
    const put = await fetch(`${sim.url}/products/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":"Lost"}' });
    expect(put.status).toBeGreaterThanOrEqual(500);
    sim.setFaults({ errorRate: 0 });
    expect((await getJson(`${sim.url}/products/1`)).name).not.toBe('Lost');
  });

  it('down: 503 with Retry-After at once, or dropped connections, or refused connections until up', async () => {
    const sim = await simulator({ overheadMs: 0 });
    await admin(sim, 'POST', '/__sim/down', { mode: '503' });
    const unavailable = await fetch(`${sim.url}/products/1`);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('1');
    await unavailable.text();

    await admin(sim, 'POST', '/__sim/down', { mode: 'reset' });
    await expect(fetch(`${sim.url}/products/1`)).rejects.toThrow();
    expect(sim.stats().faults.down).toBe(2);

    expect((await admin(sim, 'POST', '/__sim/down', { mode: 'refuse' })).status).toBe(400); // forMs required over HTTP
    expect((await admin(sim, 'POST', '/__sim/down', { mode: 'refuse', forMs: 300 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await fetch(`${sim.url}/products/1`).then(() => undefined, (error: Error & { cause?: { code?: string } }) => error.cause?.code);
    expect(refused).toBe('ECONNREFUSED');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await fetch(`${sim.url}/products/1`)).status).toBe(200);

    await sim.down('refuse');
    await expect(fetch(`${sim.url}/products/1`)).rejects.toThrow();
    await sim.up();
    expect((await fetch(`${sim.url}/products/1`)).status).toBe(200);
  });
});

describe('changes behind the sidecar\'s back', () => {
  it('a patch of fields and prices is visible on the next read; updated_at moves unless touch: false', async () => {
    let clock = new Date('2025-05-05T05:05:05.555Z');
    const sim = await simulator({ overheadMs: 0, now: () => clock });
    const patched = await admin(sim, 'POST', '/__sim/products/5', { name: 'Renamed', default_price: '1.5' });
    expect(patched.status).toBe(200);
    const detail = await getJson(`${sim.url}/products/5`);
    expect(detail).toMatchObject({ name: 'Renamed', default_price: '1.50', updated_at: '2025-05-05T05:05:05.555Z', created_at: '2021-08-13T14:38:44.509Z' });
    clock = new Date('2026-06-06T06:06:06.666Z');
    await admin(sim, 'POST', '/__sim/products/5', { slogan: 'Quietly', touch: false });
    expect(await getJson(`${sim.url}/products/5`)).toMatchObject({ slogan: 'Quietly', updated_at: '2025-05-05T05:05:05.555Z' });
    expect(sim.stats().received).toBe(2);
  });

  it('styles (legacy shape), sale prices, skus, features and related ids can be replaced', async () => {
    const sim = await simulator({ overheadMs: 0 });
    const view = (await admin(sim, 'GET', '/__sim/products/6')).body;
    const styles = [
      ...view.styles.map((s: Record<string, unknown>) => ({ ...s, sale_price: '3.00' })),
      { name: 'New Style', original_price: '10', 'default?': false, photos: [], skus: { 900001: { quantity: 3, size: 'XL' }, 900002: { quantity: 0, size: 'XL' } } },
    ];
    const changed = await admin(sim, 'POST', '/__sim/products/6', { styles, features: [{ feature: 'Fit', value: 'Slim' }], related: [1, 1, 2] });
    expect(changed.status).toBe(200);
    const read = await getJson(`${sim.url}/products/6/styles`);
    expect(read.results).toHaveLength(view.styles.length + 1);
    for (const style of read.results.slice(0, -1)) expect(style.sale_price).toBe('3.00');
    expect(read.results.at(-1)).toMatchObject({
      name: 'New Style', original_price: '10.00', sale_price: null, 'default?': false,
      photos: [{ thumbnail_url: null, url: null }], skus: { 900001: { quantity: 3, size: 'XL' }, 900002: { quantity: 0, size: 'XL' } },
    });
    expect((await getJson(`${sim.url}/products/6`)).features).toEqual([{ feature: 'Fit', value: 'Slim' }]);
    expect(await getJson(`${sim.url}/products/6/related`)).toEqual([1, 1, 2]);
    expect(await admin(sim, 'POST', '/__sim/products/6', { styles: [{ name: 'x' }] })).toEqual({
      status: 400, body: { error: 'styles[0].original_price: must be a price with at most two decimals, e.g. "140.00"' },
    });
    expect((await admin(sim, 'POST', '/__sim/products/6', { colour: 'red' })).status).toBe(400);
  });

  it('products can be added and deleted; the catalogue can be reset to its seed', async () => {
    const sim = await simulator({ overheadMs: 0 });
    const added = await admin(sim, 'POST', '/__sim/products', { name: 'Extra', slogan: 's', description: 'd', category: 'Socks', default_price: 5, related: [3] });
    expect(added.status).toBe(201);
    expect(added.body.id).toBe(201);
    expect((await getJson(`${sim.url}/products?page=41&count=5`)).map((p: { id: number }) => p.id)).toEqual([201]);
    expect(await getJson(`${sim.url}/products/201/related`)).toEqual([3]);
    expect((await admin(sim, 'DELETE', '/__sim/products/4')).status).toBe(204);
    expect((await fetch(`${sim.url}/products/4`)).status).toBe(404);
    expect((await admin(sim, 'DELETE', '/__sim/products/4')).status).toBe(404);
    await admin(sim, 'POST', '/__sim/reset-catalogue');
    expect((await fetch(`${sim.url}/products/4`)).status).toBe(200);
    expect((await fetch(`${sim.url}/products/201`)).status).toBe(404);
  });
});
