// Redis failover under load (docs/operations.md "Redis with Sentinel"): two
// real server processes, A and B, on one Postgres, finding Redis through
// three Sentinels (REDIS_SENTINELS) that watch a master and its replica
// (test/support/redis-sentinel.ts). Several clients read products through
// both instances (REST and GraphQL) while two writers rename some of them;
// then the master is killed (SIGKILL). The Sentinels promote the replica,
// which never received the invalidations it missed in the last moments, and
// both instances follow it. Checked over the whole run:
//   - no request fails: every read and every write is a 200 (Redis is a
//     cache: while it is gone reads go to Postgres and rate limits are not
//     applied);
//   - no read is stale: a read sent after a write was acknowledged shows that
//     write or a later one (the freshness guarantee of docs/caching.md: the
//     change feed, not Redis, keeps instances from serving replaced entries);
//   - caching and the shared rate limits resume on the new master through
//     both instances (cache hits, RateLimit-* headers), and afterwards one
//     key's budget is shared by A and B there, and a persisted query
//     registered through A is known to B.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { probe, redisSentinelAvailable, SENTINEL_MASTER, type SentinelRedis, startSentinelRedis, until } from '../support/redis-sentinel.ts';

/** The load is bounded: at most this many requests, and this long. */
const MAX_REQUESTS = 8_000;
const MAX_LOAD_MS = 40_000;
const READERS = 6;
/** Each writer renames its own two products in turn, this often. */
const WRITERS = 2;
const WRITE_EVERY_MS = 50;
/** Load before the master is killed, and after everything has resumed. */
const WARM_MS = 1_500;
const COOL_MS = 1_000;

const WRITTEN = [41, 42, 43, 44];
const READ_ONLY = Array.from({ length: 16 }, (_, i) => 60 + i);

interface Outcome {
  instance: 'A' | 'B';
  what: string;
  /** performance.now() when sent and when answered. */
  sentAt: number;
  doneAt: number;
  status: number | string;
  cache: string | null;
  limited: boolean;
  id?: number;
  /** The write sequence number the product's name shows (0: not renamed yet). */
  seq?: number;
}

interface Ack { id: number; seq: number; at: number }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seqOf = (name: string) => Number(/ v(\d+)$/.exec(name)?.[1] ?? 0);

describe.skipIf(!redisSentinelAvailable())('Redis Sentinel failover under load, two server processes', () => {
  const catalogue = useTestCatalogue();
  let redis: SentinelRedis;
  let a: ApiProcess;
  let b: ApiProcess;
  let writeKey: string;
  const prefix = `sentinel${Date.now()}:`;
  const outcomes: Outcome[] = [];
  const acks: Ack[] = [];
  const timeline: Record<string, number> = {};

  beforeAll(async () => {
    redis = await startSentinelRedis();
    writeKey = await createTestApiKey(catalogue.db.url, { name: 'writer' });
    const env = {
      DATABASE_URL: catalogue.db.url, CACHE: 'on', CACHE_PREFIX: prefix, REDIS_TIMEOUT_MS: '100',
      REDIS_SENTINELS: redis.sentinelsSetting, REDIS_SENTINEL_MASTER: SENTINEL_MASTER, RATE_LIMIT: 'on',
      // Not the one Redis server the environment may name (.ci/run exports REDIS_URL): both is a configuration error.
      REDIS_URL: '',
    };
    const ready = { health: (health: Record<string, any>) => health.cache?.store === 'redis' && health.cache?.changeFeed === 'listening' };
    [a, b] = await Promise.all([startApiProcess(env, ready), startApiProcess(env, ready)]);
  }, 120_000);

  afterAll(async () => {
    for (const server of [a, b]) server?.child.kill('SIGTERM');
    await Promise.all([a, b].map((server) => server?.exited));
    await redis?.stop();
  });

  const server = (instance: 'A' | 'B') => (instance === 'A' ? a : b);

  async function send(instance: 'A' | 'B', what: string, init: RequestInit & { path: string }, id?: number): Promise<Outcome & { body?: any }> {
    const sentAt = performance.now();
    try {
      const response = await fetch(server(instance).url + init.path, init);
      const text = await response.text();
      const body = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
      return {
        instance, what, sentAt, doneAt: performance.now(), status: response.status, id, body,
        cache: response.headers.get('x-cache'), limited: response.headers.has('ratelimit-remaining'),
      };
    } catch (error) {
      return { instance, what, sentAt, doneAt: performance.now(), status: String(error), cache: null, limited: false, id };
    }
  }

  async function read(instance: 'A' | 'B', id: number, kind: number): Promise<Outcome> {
    if (kind === 0) {
      const { body, ...outcome } = await send(instance, 'REST product', { path: `/products/${id}` }, id);
      return { ...outcome, seq: outcome.status === 200 ? seqOf(body.name) : undefined };
    }
    if (kind === 1) {
      const { body: _body, ...outcome } = await send(instance, 'REST styles', { path: `/products/${id}/styles` });
      return outcome;
    }
    const { body, ...outcome } = await send(instance, 'GraphQL product', {
      path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ product(id: "${id}") { id name } }` }),
    }, id);
    const name = body?.data?.product?.name as string | undefined;
    return { ...outcome, status: name === undefined && outcome.status === 200 ? `no product in ${JSON.stringify(body)}` : outcome.status, seq: name === undefined ? undefined : seqOf(name) };
  }

  it('the master is killed under load: the replica is promoted, no request fails, no read is stale, caching and rate limits resume', async () => {
    const started = performance.now();
    let stopping = false;
    const budgetLeft = () => !stopping && outcomes.length < MAX_REQUESTS && performance.now() - started < MAX_LOAD_MS;
    const readers = Array.from({ length: READERS }, async (_, reader) => {
      for (let i = 0; budgetLeft(); i++) {
        const ids = i % 2 === 0 ? WRITTEN : READ_ONLY;
        outcomes.push(await read((i + reader) % 2 === 0 ? 'A' : 'B', ids[(i * 7 + reader) % ids.length]!, (i + reader) % 3));
      }
    });
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let seq = 1; budgetLeft(); seq++) {
        const id = WRITTEN[writer * 2 + (seq % 2)]!;
        const outcome = await send(seq % 2 === 0 ? 'A' : 'B', 'REST PUT', {
          path: `/products/${id}`, method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${writeKey}` },
          body: JSON.stringify({ name: `Sentinel ${id} v${seq}` }),
        }, id);
        outcomes.push(outcome);
        if (outcome.status === 200) acks.push({ id, seq, at: outcome.doneAt });
        await sleep(WRITE_EVERY_MS);
      }
    });

    const [oldMaster, replica] = redis.servers as [typeof redis.servers[0], typeof redis.servers[0]];
    expect(await redis.masterPort()).toBe(oldMaster.port);
    await sleep(WARM_MS);
    timeline.killed = performance.now();
    await oldMaster.stop(); // SIGKILL
    await until('the Sentinels name the replica as the master', async () => (await redis.masterPort()) === replica.port);
    timeline.promoted = performance.now();
    // Both instances cache and rate-limit again: a hit and RateLimit headers on requests sent after the promotion.
    const resumed = (instance: 'A' | 'B', key: 'hit' | 'limited') => outcomes.find((o) => o.instance === instance && o.sentAt > timeline.promoted! && (key === 'hit' ? o.cache === 'hit' : o.limited));
    await until('both instances serve cache hits and apply rate limits again', async () =>
      (['A', 'B'] as const).every((instance) => resumed(instance, 'hit') && resumed(instance, 'limited')), MAX_LOAD_MS);
    for (const instance of ['A', 'B'] as const) {
      timeline[`${instance} first hit`] = resumed(instance, 'hit')!.sentAt;
      timeline[`${instance} rate limited again`] = resumed(instance, 'limited')!.sentAt;
    }
    await sleep(COOL_MS);
    stopping = true;
    await Promise.all([...readers, ...writers]);
    const elapsedMs = performance.now() - started;

    const failed = outcomes.filter((o) => o.status !== 200);
    expect(failed.slice(0, 10), `${failed.length} failed requests`).toEqual([]);
    // Stale: a read that shows an older write than one acknowledged before the read was sent.
    const stale = outcomes.filter((o) => o.seq !== undefined && o.id !== undefined && acks.some((ack) => ack.id === o.id && ack.at < o.sentAt && ack.seq > o.seq!));
    expect(stale.slice(0, 10).map((o) => ({ ...o, ackedBefore: Math.max(...acks.filter((ack) => ack.id === o.id && ack.at < o.sentAt).map((ack) => ack.seq)) })), `${stale.length} stale reads`).toEqual([]);
    // The run did what it is for: writes acknowledged while Redis was failing over, and reads of their products after them.
    const during = (o: { at?: number; sentAt?: number }) => (o.at ?? o.sentAt!) > timeline.killed! && (o.at ?? o.sentAt!) < timeline.promoted!;
    expect(acks.filter(during).length).toBeGreaterThan(0);
    const checked = outcomes.filter((o) => o.seq !== undefined && acks.some((ack) => ack.id === o.id && ack.at < o.sentAt && ack.seq > 0));
    expect(checked.length).toBeGreaterThan(100);
    const unlimited = outcomes.filter((o) => o.what !== 'REST PUT' && !o.limited).length;
    const at = (name: string) => `${(timeline[name]! - timeline.killed!).toFixed(0)} ms`;
    console.log([
      `${outcomes.length} requests in ${(elapsedMs / 1000).toFixed(1)} s (${Math.round(outcomes.length / (elapsedMs / 1000))}/s; ${acks.length} writes, ${acks.filter(during).length} of them acknowledged while Redis failed over), 0 failed`,
      `${checked.length} reads of a product after one of its writes was acknowledged, 0 stale`,
      `after the master was killed: promoted at ${at('promoted')}; first cache hit A ${at('A first hit')}, B ${at('B first hit')}; rate limits again A ${at('A rate limited again')}, B ${at('B rate limited again')}`,
      `${unlimited} reads served without a rate limit (limiter unavailable: fail open)`,
    ].join('\n  '));
  }, MAX_LOAD_MS + 60_000);

  it('after the failover, one key\'s budget is shared through A and B, entries and persisted queries are on the new master', async () => {
    const [, replica] = redis.servers;
    const newMaster = probe(replica!.port);
    try {
      expect(await newMaster.call('ROLE').then((role) => (role as string[])[0])).toBe('master');
      // A budget of 4 a minute, spent through both instances.
      const key = await createTestApiKey(catalogue.db.url, { name: 'limited', ratePerMinute: 4 });
      const spent = [];
      for (const instance of ['A', 'B', 'A', 'B', 'A'] as const) {
        const response = await fetch(`${server(instance).url}/products/1`, { headers: { authorization: `Bearer ${key}` } });
        spent.push([response.status, response.headers.get('ratelimit-remaining')]);
      }
      expect(spent).toEqual([[200, '3'], [200, '2'], [200, '1'], [200, '0'], [429, '0']]);
      const { id } = await catalogue.direct.one<{ id: number }>('SELECT id FROM api_keys WHERE name = $1', ['limited']);
      expect(await newMaster.exists(`${prefix}ratelimit:key:${id}`)).toBe(1);
      // Cached through B, the entry is in the new master.
      for (let i = 0; i < 40 && (await fetch(`${b.url}/products/77`)).headers.get('x-cache') !== 'hit'; i++) await sleep(25);
      expect((await fetch(`${b.url}/products/77`)).headers.get('x-cache')).toBe('hit');
      expect(await newMaster.exists(`${prefix}r:rest:/products/77`)).toBe(1);
      // A persisted query registered through A runs by its hash alone through B.
      const query = '{ product(id: "78") { id name } }';
      const sha256Hash = await sha256(query);
      const extensions = { persistedQuery: { version: 1, sha256Hash } };
      const post = (url: string, body: unknown) => fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json()) as Promise<any>;
      expect((await post(a.url, { query, extensions })).data.product.id).toBe('78');
      expect((await post(b.url, { extensions })).data?.product.id).toBe('78');
      expect(await newMaster.keys(`${prefix}apq:*${sha256Hash}`)).toHaveLength(1);
    } finally {
      newMaster.disconnect();
    }
  });
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}

