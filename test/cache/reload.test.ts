// `data:load --replace` while two server processes serve from one Postgres
// and one Redis, each with its local tier (CACHE_LOCAL_MB) and the CDN purge
// hook: a reload is a write. Products renamed through the API are read
// through both processes until the reads are cache hits (Redis, then the
// local tier); the catalogue is reloaded from its files by the real loader;
// the reads that follow, REST and GraphQL, through either process, show the
// reloaded names as soon as the process hears the swap (REPLACE_HEARD_MS), and the purge hook is asked to drop every CDN copy. (An
// outside run saw the old names for the whole 300 s CACHE_TTL_SECONDS.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, createTestCatalogue, createTestClient, generateTestFiles, type TestCatalogue, type TestClient, type TestFiles } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { ADMIN_HEADERS, startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { PurgeReceiver } from '../support/purge-receiver.ts';
import { HEARD_MARGIN_MS } from '../../src/cache/response-cache.ts';
import { CATALOGUE_TAG } from '../../src/http/http-caching.ts';
import { loadCatalogue } from '../../src/etl/load/load.ts';

const PRODUCTS = [3, 4, 5];
/** How soon after the loader returns every serving process must show the new catalogue (the feed hears a commit in milliseconds). */
const REPLACE_HEARD_MS = 2_000;
const graphqlQuery = (id: number) => `{ product(id: "${id}") { name } }`;

describe.skipIf(!redisAvailable())('a reload while two processes serve from one Redis, with local tiers and a CDN', () => {
  let files: TestFiles;
  let catalogue: TestCatalogue;
  let redis: TestRedis;
  const purge = new PurgeReceiver();
  const servers: ApiProcess[] = [];
  let authorization: string;

  beforeAll(async () => {
    files = await generateTestFiles();
    catalogue = await createTestCatalogue({ files });
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    const env = {
      DATABASE_URL: catalogue.db.url, REDIS_URL: redis.url, CACHE: 'on', CACHE_LOCAL_MB: '16', CACHE_PREFIX: `reload${Date.now()}:`,
      CDN_PURGE_URL: await purge.start(), HTTP_CACHE_SHARED_MAX_AGE_SECONDS: '60',
    };
    servers.push(...await Promise.all([0, 1].map(() => startApiProcess(env, { health: (health) => health.cache?.store === 'redis' && health.cache?.changeFeed === 'listening' }))));
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await redis?.stop();
    await purge.close();
    await catalogue?.dispose();
    files?.remove();
  });

  const rest = async (server: ApiProcess, id: number) => {
    const response = await fetch(`${server.url}/products/${id}`);
    return { cache: response.headers.get('x-cache'), surrogateKey: response.headers.get('surrogate-key'), name: (await response.json() as { name: string }).name };
  };
  const graphql = async (server: ApiProcess, id: number) => {
    const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: graphqlQuery(id) }) });
    return { cache: response.headers.get('x-cache'), name: (await response.json() as { data: { product: { name: string } } }).data.product.name };
  };
  const graphqlGet = async (server: ApiProcess, id: number) => {
    const response = await fetch(`${server.url}/graphql?query=${encodeURIComponent(graphqlQuery(id))}`);
    return { cache: response.headers.get('x-cache'), surrogateKey: response.headers.get('surrogate-key'), name: (await response.json() as { data: { product: { name: string } } }).data.product.name };
  };
  const localHits = async (server: ApiProcess) =>
    ((await (await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS })).json()) as { cache: { localHits: number } }).cache.localHits;

  it('the reads after the swap show the reloaded catalogue as soon as it is heard, from every tier; the CDN is purged', async () => {
    const original = new Map<number, string>();
    for (const id of PRODUCTS) {
      original.set(id, (await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id])).name);
      const put = await fetch(`${servers[0]!.url}/products/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ name: `Renamed ${id}` }) });
      expect(put.status).toBe(200);
    }
    // Entries read within HEARD_MARGIN_MS of a heard change are not served: wait that out.
    await new Promise((resolve) => setTimeout(resolve, HEARD_MARGIN_MS + 50));
    const localBefore = await Promise.all(servers.map(localHits));
    for (const server of servers) {
      for (const id of PRODUCTS) {
        // Postgres, then Redis (kept locally), then the local tier.
        for (let read = 0; read < 3; read++) await Promise.all([rest(server, id), graphql(server, id), graphqlGet(server, id)]);
        const [r, g, gg] = await Promise.all([rest(server, id), graphql(server, id), graphqlGet(server, id)]);
        expect([r, g, gg].map((answer) => [answer.cache, answer.name])).toEqual([['hit', `Renamed ${id}`], ['hit', `Renamed ${id}`], ['hit', `Renamed ${id}`]]);
        // Every answer a CDN may keep names the tag a reload purges.
        expect(r.surrogateKey?.split(' ')).toContain(CATALOGUE_TAG);
        expect(gg.surrogateKey?.split(' ')).toContain(CATALOGUE_TAG);
      }
    }
    const localAfter = await Promise.all(servers.map(localHits));
    expect(localAfter.map((hits, i) => hits - localBefore[i]!)).toEqual([expect.any(Number), expect.any(Number)]);
    for (let i = 0; i < servers.length; i++) expect(localAfter[i]! - localBefore[i]!, `process ${i}'s local tier`).toBeGreaterThan(0);
    purge.calls.length = 0;

    await loadCatalogue({ databaseUrl: catalogue.db.url, dir: files.dir, replace: true });
    const swapped = performance.now();

    const staleAnswers = async () => {
      const stale: string[] = [];
      for (const [i, server] of servers.entries()) {
        for (const id of PRODUCTS) {
          const answers = { rest: await rest(server, id), graphql: await graphql(server, id), graphqlGet: await graphqlGet(server, id) };
          for (const [api, answer] of Object.entries(answers)) {
            if (answer.name !== original.get(id)) stale.push(`process ${i} ${api} product ${id}: ${answer.name} (x-cache ${answer.cache})`);
          }
        }
      }
      return stale;
    };
    // The processes hear the swap through the change feed, as they hear any
    // write: at its commit plus the notification's delivery, which a loaded
    // host can delay past the loader's return. Within REPLACE_HEARD_MS, not the TTL.
    let stale = await staleAnswers();
    while (stale.length > 0 && performance.now() - swapped < REPLACE_HEARD_MS) stale = await staleAnswers();
    expect(stale).toEqual([]);
    await purge.waitFor([CATALOGUE_TAG]);
  }, 120_000);
});

describe('a reload under one process with its own cache (no Redis: the default)', () => {
  let files: TestFiles;
  let catalogue: TestCatalogue;
  let client: TestClient;

  beforeAll(async () => {
    files = await generateTestFiles();
    catalogue = await createTestCatalogue({ files });
    // CACHE=on and nothing else: the change feed is on by default (CHANGE_FEED=auto).
    client = await createTestClient(catalogue.db.url, { nodeEnv: 'production', env: { CACHE: 'on' } });
    expect(client.server.cache?.stats.changeFeed).toBe('listening');
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await catalogue?.dispose();
    files?.remove();
  });

  it('the reads after the swap show the reloaded catalogue as soon as it is heard', async () => {
    const { name } = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = 3');
    const put = await client.app.inject({ method: 'PUT', url: '/products/3', payload: { name: 'Renamed 3' } });
    expect(put.statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, HEARD_MARGIN_MS + 50));
    const read = () => client.app.inject({ method: 'GET', url: '/products/3' });
    const query = () => client.post(graphqlQuery(3));
    await read();
    await query();
    const [cachedRest, cachedGraphql] = [await read(), await query()];
    expect([cachedRest.headers['x-cache'], cachedRest.json().name]).toEqual(['hit', 'Renamed 3']);
    expect([cachedGraphql.headers['x-cache'], cachedGraphql.body.data?.product]).toEqual(['hit', { name: 'Renamed 3' }]);

    await loadCatalogue({ databaseUrl: catalogue.db.url, dir: files.dir, replace: true });
    const swapped = performance.now();

    // Heard through the change feed (see above): within REPLACE_HEARD_MS.
    const names = async () => [(await read()).json().name, (await query()).body.data?.product?.name];
    let seen = await names();
    while (seen.some((seenName) => seenName !== name) && performance.now() - swapped < REPLACE_HEARD_MS) seen = await names();
    expect(seen).toEqual([name, name]);
  }, 120_000);
});
