// Freshness under concurrent writers, with the invalidation counter alone:
// two real server processes on one Redis and one Postgres, the doorkeeper
// (CACHE_ADMISSION=doorkeeper) and no change feed (CHANGE_FEED=off: nothing
// refuses an entry stored stale, so a wrong store token shows). Writers
// rename a few products through both while readers ask for them through
// both, by REST and GraphQL (a new GraphQL key every few reads: first, second
// and later sightings in each process), and B reads Postgres through a
// forwarder that delays its answers, so B's reads often span a write made
// through A. No read sent after a write's acknowledgement may show the
// product older than that write (its version below the one the write
// returned), however it was answered (hit, miss, shared).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { ADMIN_HEADERS, startApiProcess, type ApiProcess } from '../support/api-process.ts';

const HOT = [11, 12, 13, 14];
const WRITERS = 3;
const READERS = 24;
const DURATION_MS = 6_000;
/** Acknowledged writes the run must have raced reads with. */
const MIN_WRITES = 50;

interface Stale { product: number; route: string; server: string; cache: string | null; got: number; acked: number }

describe.skipIf(!redisAvailable())('concurrent writers and readers on two processes (doorkeeper, the counter alone)', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let servers: ApiProcess[];
  let proxy: TcpProxy;
  let authorization: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    proxy = await TcpProxy.start(Number(new URL(catalogue.db.url).port), { answerDelayMs: 20 });
    const env = { REDIS_URL: redis.url, CACHE: 'on', CACHE_PREFIX: `cw${Date.now()}:`, CACHE_ADMISSION: 'doorkeeper', CHANGE_FEED: 'off', RATE_LIMIT: 'off' };
    servers = await Promise.all([catalogue.db.url, proxy.urlOf(catalogue.db.url)].map((url) => startApiProcess({ ...env, DATABASE_URL: url }, { health: (health) => health.cache?.store === 'redis' })));
  });
  afterAll(async () => {
    for (const server of servers ?? []) server?.child.kill('SIGTERM');
    await proxy?.close();
    await redis?.stop();
  });

  it('no read sent after a write was acknowledged shows the product older than that write', async () => {
    /** Per product: the highest version an acknowledged write returned. */
    const acked = new Map<number, number>(HOT.map((id) => [id, 0]));
    const stale: Stale[] = [];
    let writes = 0;
    /** Reads older than a write acknowledged while they ran (allowed): the run did race reads with writes. */
    let overtaken = 0;
    const end = performance.now() + DURATION_MS;
    // On a loaded host the run goes on (up to three times as long) until it has raced enough writes.
    const hardEnd = performance.now() + 3 * DURATION_MS;
    const running = () => performance.now() < end || (writes <= MIN_WRITES && performance.now() < hardEnd);
    let sequence = 0;

    const writer = async (w: number) => {
      for (let i = 0; running(); i++) {
        const id = HOT[(w + i) % HOT.length]!;
        // Each product written through both processes in turn.
        const server = servers[Math.floor((w + i) / HOT.length) % 2]!;
        const response = await fetch(`${server.url}/products/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ name: `Hot ${id} w${w} n${i}` }) });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        acked.set(id, Math.max(acked.get(id)!, Number(JSON.parse(response.headers.get('etag')!))));
        writes++;
      }
    };

    const reader = async (r: number) => {
      for (let i = 0; running(); i++) {
        const id = HOT[(r + i) % HOT.length]!;
        const which = Math.random() < 0.5 ? 0 : 1;
        const server = servers[which]!;
        const route = ['rest', 'graphql', 'styles'][i % 3]!;
        const alias = `p${Math.floor(sequence++ / 6)}`;
        const floor = acked.get(id)!;
        let response: Response;
        let version: number | undefined;
        if (route === 'rest') {
          response = await fetch(`${server.url}/products/${id}`, { headers: { authorization } });
          await response.arrayBuffer();
          version = Number(JSON.parse(response.headers.get('etag')!));
        } else if (route === 'graphql') {
          response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ query: `{ ${alias}: product(id: "${id}") { version name } }` }) });
          const body = await response.json() as { data: Record<string, { version: string }> };
          version = Number(body.data[alias]!.version);
        } else {
          // Load beside them: styles of other products, each sighted a few times.
          response = await fetch(`${server.url}/products/${id + 100 + (i % 50)}/styles`, { headers: { authorization } });
          await response.arrayBuffer();
        }
        expect(response.status).toBe(200);
        if (version === undefined) continue;
        if (version < acked.get(id)!) overtaken++;
        if (version < floor) stale.push({ product: id, route, server: which ? 'B' : 'A', cache: response.headers.get('x-cache'), got: version, acked: floor });
      }
    };

    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...Array.from({ length: READERS }, (_, r) => reader(r))]);
    const stats = await Promise.all(servers.map(async (server) => ((await (await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS })).json()) as { cache: { hits: number; secondSightings: number } }).cache));
    expect(writes).toBeGreaterThan(MIN_WRITES);
    expect(overtaken).toBeGreaterThan(0);
    for (const { hits, secondSightings } of stats) expect(Math.min(hits, secondSightings)).toBeGreaterThan(0);
    expect(stale.slice(0, 10)).toEqual([]);
  }, 60_000);
});
