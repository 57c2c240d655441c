// Freshness under Redis faults (docs/caching.md): two real server processes
// (`node src/main.ts`), A and B, on one Postgres and one Redis. B has a
// product cached (REST detail and styles, a GraphQL query); then Redis
// cannot take A's invalidation of it, or loses it, and a write through A is
// acknowledged. B must answer with the new data from its first read after
// the acknowledgement on, REST and GraphQL alike, although Redis still holds
// the old entries (each case checks that it does: without the change feed B
// would serve them, up to the pause's 4 s or the TTL's 300 s).
//
//   1. Redis pauses writes (CLIENT PAUSE 4000 WRITE, the first step of a failover).
//   2. Redis crashes and restarts with persistence (appendonly): it comes back
//      with the old entries; A's retried invalidation has not landed yet.
//   3. B's LISTEN connection is killed (pg_terminate_backend) and cannot
//      reconnect for a while: B serves nothing from the cache meanwhile, and
//      after reconnecting none of what it may have missed.
//   4. Failover: a replica that had not received the invalidation (replication
//      lag) is promoted and both instances are pointed at it.
//
// Each instance reaches Redis (and B its LISTEN connection) through a TCP
// proxy of the test's own, so a path can be cut, or pointed at another server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { ADMIN_HEADERS, startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { decodeStored } from '../../src/cache/response-cache.ts';

/** The guarantee under test: from this long after a write is acknowledged, no read through B is stale. */
const FRESH_WITHIN_MS = 1_000;
/** How long B is read after each acknowledgement (every read must be fresh from FRESH_WITHIN_MS on). */
const WATCH_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Read { cache: string | null; statements: number; name: string | undefined }

describe.skipIf(!redisAvailable())('freshness under Redis faults, two server processes', () => {
  const catalogue = useTestCatalogue();
  let master: TestRedis;
  let replica: TestRedis | undefined;
  let aofDir: string;
  let toRedisA: TcpProxy;
  let toRedisB: TcpProxy;
  let listenB: TcpProxy;
  let admin: Redis;
  let a: ApiProcess;
  let b: ApiProcess;
  let authorization: string;
  let direct: pg.Client;
  const prefix = `fresh${Date.now()}:`;
  const measured: string[] = [];

  beforeAll(async () => {
    aofDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-aof-'));
    // Persistence on, every write on disk before it is answered: a restart brings the entries back.
    master = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--dir', aofDir]);
    admin = new Redis(master.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => {});
    expect(await admin.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    toRedisA = await TcpProxy.start(master.port);
    toRedisB = await TcpProxy.start(master.port);
    const database = new URL(catalogue.db.url);
    listenB = await TcpProxy.start(Number(database.port));
    const listenUrl = new URL(catalogue.db.url);
    listenUrl.port = String(listenB.port);
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    direct = new pg.Client({ connectionString: catalogue.db.url });
    await direct.connect();
    const env = { DATABASE_URL: catalogue.db.url, CACHE: 'on', CACHE_PREFIX: prefix, REDIS_TIMEOUT_MS: '100', RATE_LIMIT: 'off' };
    const ready = { health: (health: Record<string, any>) => health.cache?.store === 'redis' && health.cache?.changeFeed === 'listening' };
    [a, b] = await Promise.all([
      startApiProcess({ ...env, REDIS_URL: `redis://127.0.0.1:${toRedisA.port}` }, ready),
      startApiProcess({ ...env, REDIS_URL: `redis://127.0.0.1:${toRedisB.port}`, CHANGE_FEED_DATABASE_URL: listenUrl.toString() }, ready),
    ]);
  }, 120_000);

  afterAll(async () => {
    console.log(`time from a write's acknowledgement to B's first fresh read:\n  ${measured.join('\n  ')}`);
    for (const server of [a, b]) server?.child.kill('SIGTERM');
    await Promise.all([a, b].map((server) => server?.exited));
    admin?.disconnect();
    await direct?.end();
    for (const proxy of [toRedisA, toRedisB, listenB]) await proxy?.close();
    await replica?.stop();
    await master?.stop();
    if (aofDir) fs.rmSync(aofDir, { recursive: true, force: true });
  });

  async function rest(server: ApiProcess, url: string): Promise<Read> {
    const response = await fetch(server.url + url);
    expect(response.status, url).toBe(200);
    const body = await response.json() as { name?: string };
    return { cache: response.headers.get('x-cache'), statements: Number(response.headers.get('x-sql-statements')), name: body.name };
  }

  async function graphql(server: ApiProcess, id: number): Promise<Read> {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ product(id: "${id}") { id name defaultPrice } }` }),
    });
    expect(response.status).toBe(200);
    const body = await response.json() as { data: { product: { name: string } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return { cache: response.headers.get('x-cache'), statements: Number(response.headers.get('x-sql-statements')), name: body.data.product.name };
  }

  const health = async (server: ApiProcess) => (await (await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS })).json()) as { cache: Record<string, any> };

  /** B serves the product's REST detail, its styles and a GraphQL query from the cache (x-cache: hit, no SQL). */
  async function warm(id: number): Promise<string> {
    for (let i = 0; i < 40; i++) {
      const reads = [await rest(b, `/products/${id}`), await rest(b, `/products/${id}/styles`), await graphql(b, id)];
      if (reads.every((read) => read.cache === 'hit' && read.statements === 0)) return reads[0]!.name!;
      await sleep(50);
    }
    throw new Error(`B did not cache product ${id}`);
  }

  /** The REST entry B would serve for the product, straight from a Redis server: its name, or undefined when there is none. */
  async function storedName(redis: Redis, id: number): Promise<string | undefined> {
    const raw = await redis.get(`${prefix}r:rest:/products/${id}`);
    const stored = raw === null ? undefined : decodeStored(raw);
    return stored === undefined ? undefined : (JSON.parse(stored.body) as { name: string }).name;
  }

  async function put(id: number, name: string): Promise<number> {
    const response = await fetch(`${a.url}/products/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ name }) });
    expect(response.status).toBe(200);
    return performance.now();
  }

  /**
   * Reads the product through B, REST and GraphQL, for WATCH_MS from the
   * acknowledgement: the first fresh read must come within FRESH_WITHIN_MS,
   * and every read after it must be fresh too. Returns when the first fresh
   * read was sent, in ms after the acknowledgement.
   */
  async function watchB(id: number, name: string, acknowledged: number, fault: string): Promise<number> {
    const reads: { sentMs: number; fresh: boolean; rest: Read; graphql: Read }[] = [];
    while (performance.now() - acknowledged < WATCH_MS) {
      const sentMs = performance.now() - acknowledged;
      const [restRead, graphqlRead] = [await rest(b, `/products/${id}`), await graphql(b, id)];
      reads.push({ sentMs, fresh: restRead.name === name && graphqlRead.name === name, rest: restRead, graphql: graphqlRead });
      await sleep(10);
    }
    const first = reads.findIndex((read) => read.fresh);
    expect(first, `${fault}: no fresh read through B within ${WATCH_MS} ms`).toBeGreaterThanOrEqual(0);
    const firstMs = reads[first]!.sentMs;
    expect(firstMs, `${fault}: first fresh read`).toBeLessThan(FRESH_WITHIN_MS);
    const staleAfter = reads.slice(first).filter((read) => !read.fresh);
    expect(staleAfter, `${fault}: stale reads after the first fresh one`).toEqual([]);
    measured.push(`${fault}: the first read through B (sent ${firstMs.toFixed(1)} ms after the 200) was ${first === 0 ? 'already ' : `read #${first + 1}, `}fresh; ${reads.length - first} fresh reads (REST and GraphQL each) over ${WATCH_MS} ms, none stale`);
    return firstMs;
  }

  it('1. Redis pauses writes (CLIENT PAUSE 4000 WRITE): B serves the new product from the first read after the 200', async () => {
    const id = 31;
    const old = await warm(id);
    const refusedBefore = (await health(b)).cache.refused as number;
    await admin.call('CLIENT', 'PAUSE', '4000', 'WRITE');
    try {
      const name = `Paused ${Date.now()}`;
      const acknowledged = await put(id, name);
      // A's invalidation did not reach Redis: the old entry is still there (reads are not paused).
      expect(await storedName(admin, id)).toBe(old);
      expect((await health(a)).cache.pendingInvalidations).toBeGreaterThan(0);
      // The styles entry shows the product too: not served either.
      expect((await rest(b, `/products/${id}/styles`)).cache).toBe('miss');
      await watchB(id, name, acknowledged, 'Redis writes paused');
      expect(await storedName(admin, id)).toBe(old);
      expect((await health(b)).cache.refused).toBeGreaterThan(refusedBefore);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    // The pause over, A's retry drops the entry, and B caches again.
    for (let i = 0; i < 100 && (await health(a)).cache.pendingInvalidations > 0; i++) await sleep(25);
    expect(await storedName(admin, id)).toBeUndefined();
    await warm(id);
  });

  it('2. Redis crashes and restarts with its data (appendonly): B does not serve the old entries it comes back with', async () => {
    const id = 32;
    const unrelated = 33;
    const old = await warm(id);
    await warm(unrelated);
    await master.stop(); // SIGKILL: a crash
    // A cannot reach Redis: its invalidation fails and is retried; here its
    // retries are held back until B has read (A's reconnection backs off up to 2 s).
    toRedisA.block();
    const name = `Restarted ${Date.now()}`;
    const acknowledged = await put(id, name);
    await master.start();
    // Redis is back with the old entry, and B is connected to it again (it serves the unrelated product from the cache).
    const restarted = new Redis(master.url, { maxRetriesPerRequest: 1 });
    restarted.on('error', () => {});
    try {
      expect(await storedName(restarted, id)).toBe(old);
      const refusedBefore = (await health(b)).cache.refused as number;
      await watchB(id, name, acknowledged, 'Redis restarted with persistence');
      for (let i = 0; i < 100 && (await rest(b, `/products/${unrelated}`)).cache !== 'hit'; i++) await sleep(20);
      expect((await rest(b, `/products/${unrelated}`)).cache).toBe('hit');
      for (let i = 0; i < 10; i++) {
        expect((await rest(b, `/products/${id}`)).name).toBe(name);
        expect((await graphql(b, id)).name).toBe(name);
      }
      // B found the old entries and did not serve them; it has stored the new product over them.
      expect((await health(b)).cache.refused).toBeGreaterThan(refusedBefore);
      expect(await storedName(restarted, id)).toBe(name);
      await warm(id);
      toRedisA.unblock();
      for (let i = 0; i < 200 && (await health(a)).cache.pendingInvalidations > 0; i++) await sleep(25);
      expect((await health(a)).cache.pendingInvalidations).toBe(0);
    } finally {
      toRedisA.unblock();
      admin.disconnect();
      admin = restarted;
    }
  });

  it('3. B\'s LISTEN connection killed: B serves nothing from the cache until it listens again, then nothing it may have missed', async () => {
    const id = 35;
    const old = await warm(id);
    // B's LISTEN connection is terminated, and (through the proxy) cannot come back for now.
    listenB.block({ keepOpen: true });
    const { rows } = await direct.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`catalogue-changes:${b.child.pid}`]);
    expect(rows).toHaveLength(1);
    await direct.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    for (let i = 0; i < 100 && (await health(b)).cache.changeFeed !== 'reconnecting'; i++) await sleep(10);
    expect((await health(b)).cache.changeFeed).toBe('reconnecting');
    const unheardBefore = (await health(b)).cache.unheard as number;
    // Not listening: every read goes to Postgres, although Redis has the entries.
    for (let i = 0; i < 3; i++) {
      for (const read of [await rest(b, `/products/${id}`), await rest(b, `/products/${id}/styles`), await graphql(b, id)]) {
        expect(read.cache).toBe('miss');
        expect(read.statements).toBeGreaterThan(0);
      }
    }
    expect((await health(b)).cache.unheard).toBeGreaterThan(unheardBefore);
    // A write B cannot hear, whose invalidation does not reach Redis either.
    toRedisA.block();
    const name = `Unheard ${Date.now()}`;
    const acknowledged = await put(id, name);
    expect(await storedName(admin, id)).toBe(old);
    await watchB(id, name, acknowledged, 'LISTEN connection down');
    expect((await health(b)).cache.changeFeed).toBe('reconnecting');
    // Postgres reachable again: B listens again by itself (its reconnection backs off to at most 2 s) ...
    listenB.unblock();
    const unblocked = performance.now();
    for (let i = 0; i < 400 && (await health(b)).cache.changeFeed !== 'listening'; i++) await sleep(10);
    expect((await health(b)).cache.changeFeed).toBe('listening');
    measured.push(`LISTEN connection down: B listening again ${(performance.now() - unblocked).toFixed(0)} ms after Postgres was reachable again`);
    // ... and does not serve the entry it did not hear was replaced, though Redis still has it.
    expect(await storedName(admin, id)).toBe(old);
    expect((await rest(b, `/products/${id}`)).name).toBe(name);
    expect((await graphql(b, id)).name).toBe(name);
    toRedisA.unblock();
    // Caching resumes.
    for (let i = 0; i < 200 && (await health(a)).cache.pendingInvalidations > 0; i++) await sleep(25);
    await warm(id);
  });

  it('4. failover to a replica that had not received the invalidation: B serves the new product, not the replica\'s old entry', async () => {
    const id = 34;
    const unrelated = 36;
    // Its own directory: a replica writes the master's snapshot to disk when it syncs.
    replica = await startTestRedis(['--replicaof', '127.0.0.1', String(master.port), '--dir', fs.mkdtempSync(path.join(aofDir, 'replica-'))]);
    const toReplica = new Redis(replica.url, { maxRetriesPerRequest: 1 });
    toReplica.on('error', () => {});
    try {
      for (let i = 0; i < 600 && !/master_link_status:up/.test(await toReplica.info("replication")); i++) await sleep(25);
      expect(await toReplica.info('replication')).toMatch(/master_link_status:up/);
      const old = await warm(id);
      await warm(unrelated);
      expect(await admin.call('WAIT', '1', '2000')).toBe(1);
      // Under load the store's write may still be on its way to the master when WAIT runs: give the replica its copy.
      for (let i = 0; i < 80 && (await storedName(toReplica, id)) !== old; i++) await sleep(25);
      expect(await storedName(toReplica, id)).toBe(old);
      // Replication lags: the replica stops receiving (it is the one promoted), the write's invalidation reaches the old master only.
      await toReplica.call('REPLICAOF', 'NO', 'ONE');
      const name = `Failed over ${Date.now()}`;
      const acknowledged = await put(id, name);
      expect((await health(a)).cache.pendingInvalidations).toBe(0);
      expect(await storedName(admin, id)).toBeUndefined();
      // The failover: both instances now reach the promoted replica; the old master is gone.
      toRedisA.retarget(replica.port);
      toRedisB.retarget(replica.port);
      await master.stop();
      // The replica keeps the old entry: nobody will invalidate it again (it would be served until its TTL).
      expect(await storedName(toReplica, id)).toBe(old);
      expect(await toReplica.ttl(`${prefix}r:rest:/products/${id}`)).toBeGreaterThan(200);
      const refusedBefore = (await health(b)).cache.refused as number;
      await watchB(id, name, acknowledged, 'failover to a lagging replica');
      for (let i = 0; i < 100 && (await rest(b, `/products/${unrelated}`)).cache !== 'hit'; i++) await sleep(20);
      expect((await rest(b, `/products/${unrelated}`)).cache).toBe('hit');
      for (let i = 0; i < 10; i++) {
        expect((await rest(b, `/products/${id}`)).name).toBe(name);
        expect((await graphql(b, id)).name).toBe(name);
        expect((await rest(a, `/products/${id}`)).name).toBe(name);
      }
      // B found the old entries and did not serve them; it stored the new product over them, and serves that from the cache.
      expect((await health(b)).cache.refused).toBeGreaterThan(refusedBefore);
      await warm(id);
      // (Stores are not awaited by the request that makes them: give a loaded machine a moment.)
      for (let i = 0; i < 100 && (await storedName(toReplica, id)) !== name; i++) await sleep(20);
      expect(await storedName(toReplica, id)).toBe(name);
    } finally {
      toReplica.disconnect();
    }
  });
});
