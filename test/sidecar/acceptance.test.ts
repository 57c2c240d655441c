// Acceptance tests of sidecar mode (issue 16) against the legacy simulator.
//
// TARGETS THE SIDECAR IMPLEMENTATION ON BRANCH i16-sidecar: until it is merged
// the API ignores LEGACY_SOURCE_URL and every test here fails (the first one
// while waiting for /readyz to show `legacySync`). That is expected.
//
// One real API process (`node src/main.ts`, production mode) on a fresh
// database, started with LEGACY_SOURCE_URL pointing at an in-process simulator
// (12 products, 20 ms per request, one at a time) and a budget of
// LEGACY_MAX_RPS=10, LEGACY_MAX_CONCURRENCY=1, LEGACY_SYNC_INTERVAL_SECONDS=1.
// What the tests rely on of the interface:
//   - /readyz (with the admin token) shows `legacySync` (at the top level of
//     its details, or among its `checks`) with `lastSuccessAt`: null or absent
//     until the first sync has finished, then the time of the last successful
//     one (any string Date.parse reads);
//   - the legacy read routes answer from the copy with the legacy service's
//     bytes, and every 200 read carries `X-Source-Age: <seconds>` (a number);
//   - PUT /products/:id (with an API key, as any REST write) goes to the legacy
//     service, and a read through the sidecar right after its answer shows it.
// The tests run in order and share the process: (b) and (c) change the
// catalogue, (d) takes the simulator down and brings it back, (e) checks the
// simulator's request log of the whole file.
//
// The test's own requests to the simulator carry a marker query parameter
// (the simulator ignores unknown parameters), so the request log tells them
// from the sidecar's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LegacySimulator, type RequestLogEntry, startLegacySimulator } from '../../src/legacy-sim/server.ts';
import { ADMIN_HEADERS, type ApiProcess, startApiProcess } from '../support/api-process.ts';
import { createTestApiKey } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const PRODUCTS = 12;
const OVERHEAD_MS = 20;
const MAX_RPS = 10;
const MAX_CONCURRENCY = 1;
const INTERVAL_SECONDS = 1;
/** Requests of a full crawl: every listing page (count 5, the default, at worst), then detail, styles and related of each product. */
const CRAWL_REQUESTS = Math.ceil((PRODUCTS + 2) / 5) + 1 + 3 * (PRODUCTS + 2);
const CRAWL_MS = (CRAWL_REQUESTS / MAX_RPS) * 1000;
/**
 * How long a change on the legacy side may take to show: one interval, plus
 * two crawls (the one under way may have read the product before the
 * change), plus slack for a loaded machine.
 */
const CHANGE_BOUND_MS = INTERVAL_SECONDS * 1000 + 2 * CRAWL_MS + 5_000;
/** Marks the test's own requests to the simulator in its request log. */
const MARK = '_acceptance=1';
/** Arrivals at the simulator lag the sidecar's sends by a little jitter: windows this much shorter than 1 s are counted. */
const WINDOW_JITTER_MS = 50;

interface Answer {
  status: number;
  bytes: Buffer;
  text: string;
  type: string | null;
  sourceAge: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function get(url: string, init?: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes, text: bytes.toString('utf8'), type: response.headers.get('content-type'), sourceAge: response.headers.get('x-source-age') };
}

const marked = (path: string) => `${path}${path.includes('?') ? '&' : '?'}${MARK}`;

/** Every product's detail, styles and related, for these ids. */
const productPaths = (ids: number[]) => ids.flatMap((id) => [`/products/${id}`, `/products/${id}/styles`, `/products/${id}/related`]);

/** Listing pages: the default, explicit pages and counts, one past the end. */
const LISTING_PATHS = [
  '/products', '/products?page=2', '/products?count=100', '/products?page=1&count=5', '/products?page=2&count=5',
  '/products?page=3&count=5', '/products?page=4&count=5', '/products?page=1&count=1', `/products?page=${PRODUCTS}&count=1`, '/products?page=99&count=5',
];

describe('sidecar mode against the legacy simulator', () => {
  let sim: LegacySimulator;
  let db: TestDatabase;
  let api: ApiProcess;
  let authorization: string;

  /** The legacy answers to `paths`, straight from the simulator (marked as the test's). */
  async function legacySnapshot(paths: string[]): Promise<Map<string, Answer>> {
    const snapshot = new Map<string, Answer>();
    for (const path of paths) snapshot.set(path, await get(`${sim.url}${marked(path)}`));
    return snapshot;
  }

  /** Where the sidecar's answers differ from the snapshot (status, bytes, content type; X-Source-Age on 200s). */
  async function differences(snapshot: Map<string, Answer>): Promise<string[]> {
    const found: string[] = [];
    for (const [path, legacy] of snapshot) {
      const sidecar = await get(`${api.url}${path}`);
      if (sidecar.status !== legacy.status) found.push(`${path}: status ${sidecar.status}, legacy ${legacy.status} (${sidecar.text.slice(0, 200)})`);
      else if (!sidecar.bytes.equals(legacy.bytes)) found.push(`${path}: body\n    sidecar ${sidecar.text}\n    legacy  ${legacy.text}`);
      else if (sidecar.type !== legacy.type) found.push(`${path}: content-type ${sidecar.type}, legacy ${legacy.type}`);
      else if (sidecar.status === 200 && !/^\d+(\.\d+)?$/.test(sidecar.sourceAge ?? '')) found.push(`${path}: X-Source-Age ${JSON.stringify(sidecar.sourceAge)}`);
    }
    return found;
  }

  /** Until the sidecar answers `snapshot`'s bytes for every path; fails with the differences left at the deadline. */
  async function eventuallySame(snapshot: Map<string, Answer>, withinMs: number): Promise<number> {
    const started = Date.now();
    let left: string[] = [];
    do {
      left = await differences(snapshot);
      if (left.length === 0) return Date.now() - started;
      await sleep(200);
    } while (Date.now() - started < withinMs);
    expect(left, `still different after ${withinMs} ms`).toEqual([]);
    return Date.now() - started;
  }

  async function legacySync(): Promise<{ lastSuccessAt?: string | null; progress?: { passes?: number; queue?: { incomplete?: number } }; [key: string]: unknown } | undefined> {
    const response = await fetch(`${api.url}/readyz`, { headers: ADMIN_HEADERS });
    const body = await response.json() as { legacySync?: Record<string, unknown>; checks?: { legacySync?: Record<string, unknown> } };
    return (body.legacySync ?? body.checks?.legacySync) as { lastSuccessAt?: string | null; progress?: { passes?: number; queue?: { incomplete?: number } } } | undefined;
  }

  /** Until /readyz shows a first full pass over the legacy catalogue (progress.passes). */
  async function firstPass(withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    let last: unknown;
    while (Date.now() < deadline) {
      const sync = await legacySync().catch(() => undefined);
      last = sync;
      if ((sync?.progress?.passes ?? 0) >= 1 && (sync?.progress?.queue?.incomplete ?? 0) === 0) return;
      await sleep(200);
    }
    throw new Error(`no full sync pass within ${withinMs} ms; last legacySync: ${JSON.stringify(last)}`);
  }

  /** Until /readyz shows a successful sync that finished after `after` (ms since the epoch). */
  async function syncedAfter(after: number, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    let last: unknown;
    while (Date.now() < deadline) {
      const sync = await legacySync().catch(() => undefined);
      last = sync;
      if (sync?.lastSuccessAt && Date.parse(sync.lastSuccessAt) > after) return;
      await sleep(200);
    }
    if (last === undefined) throw new Error(`/readyz shows no legacySync after ${withinMs} ms: this API has no sidecar mode (LEGACY_SOURCE_URL ignored; branch i16-sidecar not merged?)`);
    throw new Error(`no successful sync after ${new Date(after).toISOString()} within ${withinMs} ms; last legacySync: ${JSON.stringify(last)}`);
  }

  beforeAll(async () => {
    sim = await startLegacySimulator({ products: PRODUCTS, overheadMs: OVERHEAD_MS, requestLogSize: 100_000 });
    db = await createTestDatabase();
    authorization = `Bearer ${await createTestApiKey(db.url)}`;
    api = await startApiProcess({
      DATABASE_URL: db.url,
      LEGACY_SOURCE_URL: sim.url,
      LEGACY_MAX_RPS: String(MAX_RPS),
      LEGACY_MAX_CONCURRENCY: String(MAX_CONCURRENCY),
      LEGACY_SYNC_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
      // The polls below come from one address: no anonymous budget in the way.
      RATE_LIMIT: 'off',
    });
    // The first sync: a full crawl, plus slack.
    await syncedAfter(0, 2 * CRAWL_MS + 30_000);
    await firstPass(2 * CRAWL_MS + 30_000);
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('(a) after the first sync, every read route answers the simulator\'s bytes: listing pages, detail, styles and related of every product, and 404s', async () => {
    const ids = Array.from({ length: PRODUCTS }, (_, i) => i + 1);
    const snapshot = await legacySnapshot([...LISTING_PATHS, ...productPaths(ids), ...productPaths([999])]);
    expect(snapshot.get('/products/1')!.status).toBe(200);
    expect(snapshot.get('/products/999')!.status).toBe(404);
    expect(await differences(snapshot)).toEqual([]);
  }, 60_000);

  it('(b) a product changed, one added and one deleted on the legacy side show within one interval plus a crawl', async () => {
    const seeded = Array.from({ length: PRODUCTS }, (_, i) => i + 1);
    const changed = 2;
    // Deleted: one another product names as related (its deletion changes their related lists too), and not one the later tests use.
    const deleted = [5, 8, 9, 10, 11, 12].find((id) => seeded.some((other) => other !== id && sim.catalogue.get(other)!.related.includes(id))) ?? 5;
    sim.catalogue.update(changed, { name: 'Changed on the legacy side', defaultPrice: '77.00', features: [{ feature: 'Material', value: 'Changed' }] });
    const added = sim.catalogue.create({
      name: 'Added on the legacy side', slogan: 'New', description: 'Added behind the sidecar\'s back', category: 'Jackets', defaultPrice: '120.00',
      features: [{ feature: 'Fabric', value: 'Canvas' }, { feature: 'Buttons', value: null }],
      styles: [{ name: 'Added style', originalPrice: '120.00', salePrice: '99.00', isDefault: true, photos: [{ thumbnailUrl: 'https://example.com/t.jpg', url: 'https://example.com/p.jpg' }], skus: [{ quantity: 4, size: 'M' }, { quantity: 0, size: 'L' }] }],
      related: [1, changed],
    });
    expect(sim.catalogue.delete(deleted)).toBe(true);

    const ids = [...seeded, added.id];
    const snapshot = await legacySnapshot([...LISTING_PATHS, ...productPaths(ids)]);
    expect(snapshot.get(`/products/${added.id}`)!.status).toBe(200);
    expect(snapshot.get(`/products/${deleted}`)!.status).toBe(404);
    expect(JSON.parse(snapshot.get(`/products/${changed}`)!.text).name).toBe('Changed on the legacy side');
    await eventuallySame(snapshot, CHANGE_BOUND_MS);
  }, 120_000);

  it('(b) a change the legacy timestamps do not show (updated_at untouched) shows within the same bound', async () => {
    const id = 4;
    const before = sim.view(id)!;
    sim.catalogue.update(id, { slogan: 'Changed quietly', related: [1] }, { touch: false });
    expect(sim.view(id)!.updated_at).toBe(before.updated_at);
    await eventuallySame(await legacySnapshot(productPaths([id])), CHANGE_BOUND_MS);
  }, 120_000);

  it('(c) a REST PUT through the sidecar lands on the simulator and reads back at once from the sidecar', async () => {
    const id = 6;
    const writesBefore = sim.stats().writes;
    const put = await get(`${api.url}/products/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ name: 'Written through the sidecar', default_price: '42.00', features: [{ feature: 'Sole', value: 'Rubber' }] }),
    });
    expect(put.status, put.text).toBe(200);
    // On the legacy side, through its PUT route.
    expect(sim.stats().writes).toBe(writesBefore + 1);
    expect(sim.catalogue.get(id)).toMatchObject({ name: 'Written through the sidecar', defaultPrice: '42.00', features: [{ feature: 'Sole', value: 'Rubber' }] });
    // At once through the sidecar: no wait for a sync.
    const detail = await get(`${api.url}/products/${id}`);
    const legacy = await get(`${sim.url}${marked(`/products/${id}`)}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toBe(legacy.text);
    expect(detail.bytes.equals(legacy.bytes)).toBe(true);
    expect(JSON.parse(put.text)).toEqual(JSON.parse(legacy.text));
  }, 60_000);

  it('(d) with the legacy service down, reads keep answering 200 from the copy with X-Source-Age; the sync resumes when it is back', async () => {
    const paths = ['/products?page=1&count=5', ...productPaths([1, 7])];
    // The copy holds everything done before the outage (the earlier tests' changes included) once a sync has ended after now.
    await syncedAfter(Date.now(), CHANGE_BOUND_MS + 30_000);
    const expected = await legacySnapshot(paths);
    for (const mode of ['503', 'refuse', 'reset'] as const) {
      await sim.down(mode);
      const downAt = Date.now();
      // Long enough for a few failed syncs (and retries, and the breaker to open).
      await sleep(3_000);
      for (const path of paths) {
        const read = await get(`${api.url}${path}`);
        expect({ mode, path, status: read.status }).toEqual({ mode, path, status: 200 });
        expect(read.text).toBe(expected.get(path)!.text);
        expect(read.sourceAge, `${mode} ${path}: X-Source-Age`).toMatch(/^\d+(\.\d+)?$/);
        // Nothing was synced since the outage began: the copy is at least that old (whole seconds, rounded down).
        expect(Number(read.sourceAge), `${mode} ${path}: X-Source-Age ${read.sourceAge}`).toBeGreaterThanOrEqual(Math.floor((Date.now() - downAt) / 1000) - 1);
      }
      await sim.up();
      // The breaker may have opened: its cool-down (5 s by default, doubling per failed probe) comes first.
      await syncedAfter(Date.now(), CHANGE_BOUND_MS + 30_000);
    }
  }, 240_000);

  it('(e) the simulator never saw more than the budget: LEGACY_MAX_CONCURRENCY at once, LEGACY_MAX_RPS in any second', () => {
    const stats = sim.stats();
    expect(stats.maxConcurrent).toBeLessThanOrEqual(MAX_CONCURRENCY);
    const all = sim.requests();
    expect(all[0]!.seq, 'the request log kept every request').toBe(1);
    const log = all.filter((entry) => !entry.url.includes(MARK));
    expect(log.length, 'requests the sidecar sent').toBeGreaterThan(3 * PRODUCTS);
    expect(maxOverlap(log), 'most sidecar requests in flight at once (from receipt to answer)').toBeLessThanOrEqual(MAX_CONCURRENCY);
    const busiest = busiestWindow(log, 1000 - WINDOW_JITTER_MS);
    expect(busiest.count, `sidecar requests received in ${1000 - WINDOW_JITTER_MS} ms from ${busiest.from}`).toBeLessThanOrEqual(MAX_RPS);
  });
});

const receivedAt = (entry: RequestLogEntry) => Date.parse(entry.receivedAt);

/** The most requests between receipt and answer at once; an answer and a receipt in the same millisecond do not overlap. */
function maxOverlap(log: RequestLogEntry[]): number {
  const now = Date.now();
  const events = log.flatMap((entry) => [
    { at: receivedAt(entry), delta: 1 },
    { at: entry.ms === undefined ? now : receivedAt(entry) + entry.ms, delta: -1 },
  ]).sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let most = 0;
  for (const event of events) {
    open += event.delta;
    most = Math.max(most, open);
  }
  return most;
}

/** The most requests received within `windowMs` of one another, and when that window began. */
function busiestWindow(log: RequestLogEntry[], windowMs: number): { count: number; from: string } {
  const times = log.map(receivedAt).sort((a, b) => a - b);
  let best = { count: 0, from: '' };
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    if (j - i > best.count) best = { count: j - i, from: new Date(times[i]!).toISOString() };
  }
  return best;
}
