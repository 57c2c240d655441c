// Contention the way production has it: two real server processes
// (`node src/main.ts`) on one Postgres and one Redis (response cache on), 50
// concurrent writers over 10 products mixing creates (with and without
// Idempotency-Key, REST and GraphQL), updates (with and without features,
// with and without If-Match / expectedVersion) and deletes. Then:
// - no answer is a 5xx, no GraphQL error is internal;
// - the database is what applying the acknowledged writes one after the other
//   gives: per product, in the order of the versions they answered with (each
//   write's own answer shows the state after exactly the writes before it);
// - every keyed create made one product, every unkeyed one its own;
// - a read after the last acknowledgement shows the database, through both
//   processes, REST and GraphQL (the cache was invalidated).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const WRITERS = 50;
const OPERATIONS_PER_WRITER = 12;
const PRODUCTS = 10;
/** The products deletes may pick (a few, so most updates still find their product). */
const DELETABLE = 2;
const KEYS = 5;

type Feature = { feature: string; value: string | null };
interface State { name: string; slogan: string; defaultPrice: string; features: Feature[] }
interface Change { name?: string; slogan?: string; defaultPrice?: string; features?: Feature[] }
interface Acknowledged { productId: number; version: bigint; change: Change; answer: State; via: string }

/** A small deterministic generator: the same operations on every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe.skipIf(!redisAvailable())('50 concurrent writers over 10 products, two processes, REST and GraphQL', () => {
  const catalogue = useTestCatalogue();
  let redis: TestRedis;
  let servers: ApiProcess[];
  let authorization: string;
  let ids: number[];
  const initial = new Map<number, State>();

  async function stateOf(id: number): Promise<(State & { version: string }) | undefined> {
    const rows = await catalogue.direct.rows<{ name: string; slogan: string; default_price: string; version: string }>(
      'SELECT name, slogan, default_price::text, version::text FROM products WHERE id = $1', [id]);
    if (rows.length === 0) return undefined;
    const features = await catalogue.direct.rows<Feature>('SELECT feature, value FROM features WHERE product_id = $1 ORDER BY id', [id]);
    const row = rows[0]!;
    return { name: row.name, slogan: row.slogan, defaultPrice: row.default_price, version: row.version, features };
  }

  beforeAll(async () => {
    redis = await startTestRedis();
    authorization = `Bearer ${await createTestApiKey(catalogue.db.url)}`;
    const env = { DATABASE_URL: catalogue.db.url, REDIS_URL: redis.url, CACHE: 'on', RATE_LIMIT: 'off', CACHE_PREFIX: `contention${Date.now()}:` };
    servers = await Promise.all([0, 1].map(() => startApiProcess(env, { health: (health) => health.cache?.store === 'redis' })));
    ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT $1', [PRODUCTS])).map((row) => row.id);
    for (const id of ids) {
      const { version: _version, ...state } = (await stateOf(id))!;
      initial.set(id, state);
    }
  }, 120_000);
  afterAll(async () => {
    for (const server of servers ?? []) server.child.kill('SIGTERM');
    await Promise.all((servers ?? []).map((server) => server.exited));
    await redis?.stop();
  });

  it('no 5xx, no internal error; the database and both processes show a serial order of the acknowledged writes', async () => {
    const next = random(13);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    const updates: Acknowledged[] = [];
    const deleted = new Set<number>();
    const keyedCreates = new Map<string, Set<number>>();
    const unkeyedCreates: { id: number; name: string }[] = [];
    let unique = 0;

    const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
    const headers = { 'content-type': 'application/json', authorization };
    const rest = (server: ApiProcess, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
      fetch(server.url + path, body === undefined ? { method, headers: { authorization, ...extra } } : { method, headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const graphql = async (server: ApiProcess, query: string, variables: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return { status: response.status, body: await response.json() as { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string; currentVersion?: string } }[] } };
    };
    /** Records an answer; anything but the expected statuses is a failure. */
    const check = (label: string, status: number, allowed: number[], detail: () => string) => {
      count(`${label} ${status}`);
      if (!allowed.includes(status)) failures.push(`${label}: ${status} ${detail()}`);
    };
    const versionOf = async (server: ApiProcess, id: number) => {
      const response = await rest(server, 'GET', `/products/${id}`);
      check('GET', response.status, [200, 404], () => '');
      await response.arrayBuffer();
      return response.headers.get('etag') ?? undefined;
    };
    const randomChange = (): Change => {
      const change: Change = {};
      const tag = `w${unique++}`;
      if (next() < 0.6) change.name = `Name ${tag}`;
      if (next() < 0.3) change.slogan = `Slogan ${tag}`;
      if (next() < 0.3) change.defaultPrice = `${Math.floor(next() * 500)}.${String(Math.floor(next() * 100)).padStart(2, '0')}`;
      if (next() < 0.5 || Object.keys(change).length === 0) {
        change.features = Array.from({ length: Math.floor(next() * 4) }, (_, i) => ({ feature: `F${i} ${tag}`, value: next() < 0.3 ? null : `V${i}` }));
      }
      return change;
    };
    const stateFromRest = (body: any): State => ({ name: body.name, slogan: body.slogan, defaultPrice: body.default_price, features: body.features });

    const operation = async () => {
      const server = pick(servers);
      const roll = next();
      if (roll < 0.04) {
        const id = pick(ids.slice(0, DELETABLE));
        const conditional = next() < 0.5 ? await versionOf(server, id) : undefined;
        if (next() < 0.5) {
          const response = await rest(server, 'DELETE', `/products/${id}`, undefined, conditional ? { 'if-match': conditional } : {});
          check('REST DELETE', response.status, [204, 404, 412], () => '');
          if (response.status === 204) deleted.add(id);
        } else {
          const { status, body } = await graphql(server, 'mutation ($id: ID!, $v: String) { deleteProduct(id: $id, expectedVersion: $v) }', { id: String(id), v: conditional?.slice(1, -1) ?? null });
          const code = body.errors?.[0]?.extensions?.code;
          check(`GraphQL deleteProduct ${code ?? 'ok'}`, status, [200], () => JSON.stringify(body));
          if (status === 200 && !body.errors) deleted.add(id);
        }
      } else if (roll < 0.2) {
        const keyed = next() < 0.5;
        const key = keyed ? `contention-key-${Math.floor(next() * KEYS)}` : undefined;
        const name = key ? `Created with ${key}` : `Created ${unique++}`;
        const input = { name, slogan: 's', description: 'd', category: 'Contention', features: [{ feature: 'Fabric', value: 'Wool' }] };
        let id: number | undefined;
        if (next() < 0.5) {
          const response = await rest(server, 'POST', '/products', { ...input, default_price: '25.00' }, key ? { 'idempotency-key': key } : {});
          check('REST POST', response.status, [201], () => '');
          id = ((await response.json()) as { id: number }).id;
        } else {
          const { status, body } = await graphql(server, 'mutation ($input: CreateProductInput!, $key: String) { createProduct(input: $input, idempotencyKey: $key) { id } }', { input: { ...input, defaultPrice: '25' }, key: key ?? null });
          check('GraphQL createProduct', status, [200], () => JSON.stringify(body));
          if (body.errors) failures.push(`createProduct errors: ${JSON.stringify(body.errors)}`);
          id = Number(body.data?.createProduct?.id);
        }
        if (key) keyedCreates.set(key, (keyedCreates.get(key) ?? new Set()).add(id!));
        else unkeyedCreates.push({ id: id!, name });
      } else {
        const id = pick(ids);
        const change = randomChange();
        const conditional = next() < 0.5 ? await versionOf(server, id) : undefined;
        if (next() < 0.5) {
          const body = { ...change, ...(change.defaultPrice ? { default_price: change.defaultPrice } : {}) };
          delete (body as Change).defaultPrice;
          const response = await rest(server, 'PUT', `/products/${id}`, body, conditional ? { 'if-match': conditional } : {});
          check(`REST PUT${conditional ? ' If-Match' : ''}`, response.status, [200, 404, 412], () => '');
          if (response.status === 200) {
            updates.push({ productId: id, version: BigInt(response.headers.get('etag')!.slice(1, -1)), change, answer: stateFromRest(await response.json()), via: 'REST' });
          } else {
            await response.arrayBuffer();
          }
        } else {
          const { status, body } = await graphql(server,
            'mutation ($id: ID!, $input: UpdateProductInput!, $v: String) { updateProduct(id: $id, input: $input, expectedVersion: $v) { version name slogan defaultPrice features { feature value } } }',
            { id: String(id), input: change, v: conditional?.slice(1, -1) ?? null });
          const code = body.errors?.[0]?.extensions?.code;
          check(`GraphQL updateProduct ${code ?? 'ok'}`, status, [200], () => JSON.stringify(body));
          if (code === undefined && body.data?.updateProduct) {
            const { version, ...answer } = body.data.updateProduct as State & { version: string };
            updates.push({ productId: id, version: BigInt(version), change, answer, via: 'GraphQL' });
          }
        }
      }
    };

    await Promise.all(Array.from({ length: WRITERS }, async () => {
      for (let i = 0; i < OPERATIONS_PER_WRITER; i++) {
        try {
          await operation();
        } catch (error) {
          failures.push(`request failed: ${(error as Error).message}`);
        }
      }
    }));

    // Every answer was one a client can act on: no 5xx, no internal error.
    // A 5xx is a bug: show what the servers logged about it.
    const errorLines = () => servers.flatMap((server) => server.output().split('\n').filter((line) => line.includes('"level":50'))).join('\n');
    expect(failures, failures.length ? errorLines() : undefined).toEqual([]);
    expect([...statuses.keys()].filter((label) => / 5\d\d$/.test(label) || label.includes('INTERNAL'))).toEqual([]);
    // The mix happened: conditional writes did meet stale versions.
    expect((statuses.get('REST PUT If-Match 200') ?? 0) + (statuses.get('GraphQL updateProduct ok 200') ?? 0)).toBeGreaterThan(50);
    expect((statuses.get('REST PUT If-Match 412') ?? 0) + (statuses.get('GraphQL updateProduct CONFLICT 200') ?? 0)).toBeGreaterThan(0);

    // Per product, the acknowledged updates in version order replay to the database state,
    // and each answer shows the state after exactly the updates before it.
    for (const id of ids) {
      const mine = updates.filter((update) => update.productId === id).sort((x, y) => (x.version < y.version ? -1 : 1));
      expect(new Set(mine.map((update) => update.version)).size, `product ${id}: versions are unique`).toBe(mine.length);
      let expected: State = structuredClone(initial.get(id)!);
      for (const update of mine) {
        expected = { ...expected, ...structuredClone(update.change) };
        expect(update.answer, `product ${id}, version ${update.version} (${update.via})`).toEqual(expected);
      }
      const final = await stateOf(id);
      if (deleted.has(id)) {
        expect(final, `product ${id} was deleted`).toBeUndefined();
        continue;
      }
      const { version, ...state } = final!;
      expect(state, `product ${id}`).toEqual(expected);
      if (mine.length > 0) expect(BigInt(version)).toBe(mine.at(-1)!.version);
    }

    // Creates: one product per idempotency key however many times and ways it was sent, one per unkeyed create.
    for (const [key, created] of keyedCreates) {
      expect(created.size, key).toBe(1);
      const named = await catalogue.direct.rows<{ id: number }>('SELECT id FROM products WHERE name = $1', [`Created with ${key}`]);
      expect(named.map((row) => row.id)).toEqual([...created]);
    }
    const unkeyed = await catalogue.direct.rows<{ id: number; name: string }>("SELECT id, name FROM products WHERE category = 'Contention' AND name NOT LIKE 'Created with %' ORDER BY id");
    expect(unkeyed).toEqual([...unkeyedCreates].sort((x, y) => x.id - y.id));

    // After the last acknowledgement, both processes show the database, REST and GraphQL.
    for (const id of ids) {
      const state = await stateOf(id);
      for (const server of servers) {
        const response = await rest(server, 'GET', `/products/${id}`);
        if (!state) {
          expect(response.status).toBe(404);
          continue;
        }
        expect(response.headers.get('etag')).toBe(`"${state.version}"`);
        expect(stateFromRest(await response.json())).toEqual({ name: state.name, slogan: state.slogan, defaultPrice: state.defaultPrice, features: state.features });
        const { body } = await graphql(server, 'query ($id: ID!) { product(id: $id) { version name slogan defaultPrice features { feature value } } }', { id: String(id) });
        expect(body.data?.product).toEqual(state);
      }
    }
    console.log(`contention: ${[...statuses].sort().map(([label, n]) => `${label}: ${n}`).join(', ')}; ${updates.length} acknowledged updates`);
  }, 180_000);
});
