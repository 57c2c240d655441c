// Writes through two server processes (one Postgres, one Redis, cache on)
// while `data:load --replace` runs: a write committed during a load used to be
// acknowledged and then undone by the swap (an outside run: 7,677 of 7,698
// gone), and the swap reset the id sequences, handing ids out again. Now a
// load refuses every write, REST and GraphQL, with 503 and Retry-After from
// the moment it starts to its swap's commit, and the sequences never go back.
// Checked three ways: a load that swaps, a loader killed mid-load, and a swap
// tried again after a deadlock. Every write acknowledged after the load began
// is in the catalogue at the end; no id is acknowledged twice; a subscriber
// hears what the swap changed.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, createTestCatalogue, generateTestFiles, type TestCatalogue, type TestFiles } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { subscribeWs, wsClient } from '../support/live-clients.ts';
import { loadCatalogue } from '../../src/etl/load/load.ts';
import { RELOAD_RETRY_AFTER_SECONDS } from '../../src/db/writes/transaction.ts';

const WRITERS = 6;
/** Products each writer renames (its own: the last acknowledged name of each is known). */
const OWNED = 8;
/** A product no writer touches, watched by a subscriber. */
const WATCHED = 90;
const REFUSED_LINE = 'writes to the catalogue are refused';

interface Ack { kind: 'create' | 'update'; id: number; name: string; sentAt: number }

/** Writers on both processes, REST and GraphQL in turn, each over its own products, until told to stop. */
class Writers {
  readonly acks: Ack[][] = Array.from({ length: WRITERS }, () => []);
  readonly refusals: { retryAfter: string | null; message: string }[] = [];
  readonly failures: string[] = [];
  private stopped = false;
  private readonly running: Promise<void>[];
  private readonly authorization: string;
  private readonly tag: string;

  constructor(servers: ApiProcess[], authorization: string, tag: string) {
    this.authorization = authorization;
    this.tag = tag;
    this.running = Array.from({ length: WRITERS }, (_, writer) => this.write(servers[writer % servers.length]!, writer));
  }

  /** Acknowledged writes sent after `since` (performance.now()). */
  ackedAfter(since: number): number {
    return this.acks.flat().filter((ack) => ack.sentAt > since).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  private async write(server: ApiProcess, writer: number): Promise<void> {
    for (let op = 0; !this.stopped; op++) {
      const rest = op % 2 === 0;
      const create = op % 5 === 0;
      const id = create ? 0 : writer * OWNED + 1 + (op % OWNED);
      const name = `${this.tag} w${writer} op${op}`;
      const sentAt = performance.now();
      const response = create ? await this.create(server, rest, name, `${this.tag}-${writer}-${op}`) : await this.update(server, rest, id, name);
      const body = await response.json() as any;
      const reloading = rest ? /being reloaded/.test(body.error ?? '') : body.errors?.[0]?.extensions?.code === 'CATALOGUE_RELOADING';
      if (response.status === 503 && reloading) {
        this.refusals.push({ retryAfter: response.headers.get('retry-after'), message: rest ? body.error : body.errors[0].message });
        await new Promise((resolve) => setTimeout(resolve, 10));
      } else if (response.ok && !body.errors) {
        const ackedId = create ? Number(rest ? body.id : body.data.createProduct.id) : id;
        this.acks[writer]!.push({ kind: create ? 'create' : 'update', id: ackedId, name, sentAt });
      } else if (!(response.status === 404 || body.errors?.[0]?.extensions?.code === 'NOT_FOUND')) {
        this.failures.push(`${rest ? 'REST' : 'GraphQL'} ${create ? 'create' : `update ${id}`}: ${response.status} ${JSON.stringify(body)}`);
      }
    }
  }

  private create(server: ApiProcess, rest: boolean, name: string, key: string): Promise<Response> {
    const input = { name, slogan: 's', description: 'd', category: 'Reloads' };
    return rest
      ? this.send(server, '/products', 'POST', { ...input, default_price: '25.00' }, { 'idempotency-key': key })
      : this.send(server, '/graphql', 'POST', {
        query: 'mutation ($input: CreateProductInput!, $key: String) { createProduct(input: $input, idempotencyKey: $key) { id } }',
        variables: { input: { ...input, defaultPrice: '25' }, key },
      });
  }

  private update(server: ApiProcess, rest: boolean, id: number, name: string): Promise<Response> {
    return rest
      ? this.send(server, `/products/${id}`, 'PUT', { name })
      : this.send(server, '/graphql', 'POST', {
        query: 'mutation ($id: ID!, $name: String!) { updateProduct(id: $id, input: { name: $name }) { id } }',
        variables: { id: String(id), name },
      });
  }

  private send(server: ApiProcess, path: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method, body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', authorization: this.authorization, ...headers },
    });
  }
}

describe.skipIf(!redisAvailable())('writes through two processes while the catalogue is reloaded', () => {
  let filesA: TestFiles;
  let filesB: TestFiles;
  let catalogue: TestCatalogue;
  let redis: TestRedis;
  const servers: ApiProcess[] = [];
  let authorization: string;
  /** Every id a create was acknowledged with, over every run: none twice. */
  const createdIds: number[] = [];

  beforeAll(async () => {
    [filesA, filesB] = await Promise.all([generateTestFiles({ seed: 1 }), generateTestFiles({ seed: 2 })]);
    catalogue = await createTestCatalogue({ files: filesA });
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    const env = { DATABASE_URL: catalogue.db.url, REDIS_URL: redis.url, CACHE: 'on', CACHE_PREFIX: `reload-writes${Date.now()}:` };
    servers.push(...await Promise.all([0, 1].map(() => startApiProcess(env, { health: (health) => health.cache?.changeFeed === 'listening' }))));
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await redis?.stop();
    await catalogue?.dispose();
    filesA?.remove();
    filesB?.remove();
  });

  const names = async () => new Map((await catalogue.direct.rows<{ id: number; name: string }>('SELECT id, name FROM products')).map((r) => [r.id, r.name]));

  /**
   * Writers run before, through and after `reload`, which calls `paused`
   * once writes are refused; they stop once each has had writes acknowledged
   * after it. Then every acknowledged write sent after the pause is checked
   * against the catalogue.
   */
  async function writeThrough(tag: string, reload: (paused: () => void) => Promise<void>): Promise<void> {
    const writers = new Writers(servers, authorization, tag);
    let pausedAt = Number.POSITIVE_INFINITY;
    try {
      await until(() => writers.ackedAfter(0) >= WRITERS * 3, 'writes before the load');
      await reload(() => { pausedAt = performance.now(); });
      const reloadedAt = performance.now();
      await until(() => writers.ackedAfter(reloadedAt) >= WRITERS * 5, 'writes acknowledged after the load');
    } finally {
      await writers.stop();
    }
    expect(writers.failures).toEqual([]);
    // Every write acknowledged after writes were refused is there: the last name of each owned product, every product created.
    const now = await names();
    const lost: string[] = [];
    for (const acks of writers.acks) {
      const last = new Map<number, Ack>();
      for (const ack of acks) if (ack.kind === 'update') last.set(ack.id, ack);
      for (const ack of [...last.values(), ...acks.filter((a) => a.kind === 'create')]) {
        if (ack.sentAt > pausedAt && now.get(ack.id) !== ack.name) lost.push(`${ack.kind} ${ack.id} "${ack.name}": now ${JSON.stringify(now.get(ack.id))}`);
      }
    }
    expect(lost).toEqual([]);
    createdIds.push(...writers.acks.flat().filter((ack) => ack.kind === 'create').map((ack) => ack.id));
    expect(createdIds.length - new Set(createdIds).size, 'ids acknowledged by two creates').toBe(0);
    expect(writers.refusals.length).toBeGreaterThan(0);
    for (const refusal of writers.refusals) {
      expect(refusal.retryAfter).toBe(String(RELOAD_RETRY_AFTER_SECONDS));
      expect(refusal.message).toMatch(/the catalogue is being reloaded .*nothing was written/);
    }
  }

  it('a load that swaps: every write during it refused (503, Retry-After), none acknowledged and undone; a subscriber hears the swap', async () => {
    const live = wsClient(servers[1]!.url, { apiKey: authorization.slice('Bearer '.length) });
    const { received, dispose } = subscribeWs(live, { query: `subscription { productChanged(ids: ["${WATCHED}"]) { id product { name } } }` });
    try {
      await received.until((r) => r.latest(WATCHED) !== undefined, 20_000, 'the first state');
      await writeThrough('swap', async (paused) => {
        await loadCatalogue({ databaseUrl: catalogue.db.url, dir: filesB.dir, replace: true, log: (line) => { if (line.startsWith(REFUSED_LINE)) paused(); } });
      });
      const reloaded = (await names()).get(WATCHED);
      expect(reloaded).toBeDefined();
      await received.until((r) => r.latest(WATCHED)?.name === reloaded, 10_000, `product ${WATCHED} as reloaded`);
    } finally {
      dispose();
      await live.dispose();
    }
  });

  it('a loader killed mid-load: writes are refused while it runs and taken again once it is gone', async () => {
    await writeThrough('killed', async (paused) => {
      const child = spawn(process.execPath, ['src/etl/load/cli.ts', '--dir', filesA.dir, '--replace'], {
        env: { ...process.env, CI: '1', DATABASE_URL: catalogue.db.url }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      try {
        await new Promise<void>((resolve, reject) => {
          child.on('exit', () => reject(new Error('the loader ended before it was killed')));
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            if (chunk.includes(REFUSED_LINE)) paused();
            // Killed once the files are staged, before keys, documents and the swap.
            if (chunk.includes('building primary keys')) resolve();
          });
        });
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
    });
  });

  it('a swap that meets a deadlock and is tried again: writes stay refused until it commits', async () => {
    const session = new pg.Client({ connectionString: catalogue.db.url });
    await session.connect();
    const lines: string[] = [];
    try {
      let held: Promise<unknown> | undefined;
      await writeThrough('deadlock', async (paused) => {
        await loadCatalogue({
          databaseUrl: catalogue.db.url, dir: filesA.dir, replace: true,
          log: (line) => { lines.push(line); if (line.startsWith(REFUSED_LINE)) paused(); },
          // Another program's session: holds a child table, then asks for a parent the swap holds.
          beforeSwap: async () => {
            await session.query('BEGIN');
            await session.query('LOCK TABLE public.skus IN ROW EXCLUSIVE MODE');
            held = new Promise((resolve) => setTimeout(resolve, 300))
              .then(() => session.query('SELECT 1 FROM public.products LIMIT 1 FOR KEY SHARE'))
              .then(() => session.query('COMMIT'));
          },
        });
        await held;
      });
      expect(lines.some((line) => /deadlock/.test(line))).toBe(true);
    } finally {
      await session.end();
    }
  });
});

async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
