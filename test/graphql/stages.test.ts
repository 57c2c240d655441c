// Every GraphQL request passes the same stages in the same order
// (src/graphql/stages.ts), whichever way it is answered: the known-operation
// path's runner or Apollo's adapters. Each stage notes in the request's trace
// that it ran; this test asserts the whole ordered list for every kind of
// request (POST known and unknown, persisted GET, GET with the text, cache off
// and on, misses and hits, mutations, refusals, results with errors), so a
// stage skipped for any of them fails it.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_ORDER } from '../../src/graphql/stages.ts';
import { createTestClient, GRAPHQL_ACCEPT, useTestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { cacheConnected, redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const catalogue = useTestCatalogue();

const QUERY = 'query Page($id: ID!) { product(id: $id) { id name styles { id skus { size } } } }';
const HASH = crypto.createHash('sha256').update(QUERY).digest('hex');

/** What a request ran: every stage, or every stage but execution (a cached answer), or the checks and the answer's headers and status (a refusal: no cache, no execution). */
const ALL = [...STAGE_ORDER];
const CACHED = STAGE_ORDER.filter((stage) => stage !== 'execute');
const REFUSED = ['metrics', 'trustedDocuments', 'limits', 'access', 'cacheControl', 'httpStatus'];

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (redisAvailable()) redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const SETUPS = [
  { cache: 'off', env: () => ({ CACHE: 'off' }) },
  { cache: 'memory', env: () => ({ CACHE: 'on' }) },
  ...(redisAvailable() ? [{ cache: 'redis', env: () => ({ CACHE: 'on', REDIS_URL: redis!.url, CACHE_PREFIX: `stages${crypto.randomUUID()}:`, CACHE_ADMISSION: 'first-miss' }) }] : []),
] as const;

/** A client whose /graphql requests report the stages they ran, and the way each was answered. */
async function withTracedClient(env: Record<string, string>, run: (client: TestClient, traced: () => { stages: readonly string[]; known: boolean }) => Promise<void>) {
  const client = await createTestClient(catalogue.db.url, { env: { GRAPHQL_JIT: 'on', ...env } });
  try {
    await cacheConnected(client.server);
    await (client.server.cache as unknown as { store?: { checkGeneration?(): Promise<number> } } | undefined)?.store?.checkGeneration?.();
    const fast = client.server.fastPath!;
    let last: readonly string[] = [];
    fast.observeStages = (stages) => { last = [...stages]; };
    let answered = fast.answered;
    await run(client, () => {
      const known = fast.answered > answered;
      answered = fast.answered;
      return { stages: last, known };
    });
  } finally {
    await client.close();
  }
}

const post = (client: TestClient, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  client.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload });
const get = (client: TestClient, params: Record<string, string>) => client.app.inject({ method: 'GET', url: `/graphql?${new URLSearchParams(params)}`, headers: { accept: GRAPHQL_ACCEPT } });
const byHash = (id: string) => ({ operationName: 'Page', variables: JSON.stringify({ id }), extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }) });
const page = (id: string) => ({ query: QUERY, operationName: 'Page', variables: { id } });

describe.each(SETUPS)('the stages of every request, cache $cache', ({ cache, env }) => {
  const cached = cache !== 'off';

  it('queries by POST (unknown, then known), by persisted GET and by GET with the text: misses and hits run every stage in order; hits all but execution', async () => {
    await withTracedClient(env(), async (client, traced) => {
      const expectRun = async (response: Promise<{ statusCode: number }>, expected: { stages: readonly string[]; known: boolean }) => {
        expect((await response).statusCode).toBe(200);
        expect(traced()).toEqual(expected);
      };
      // Unknown text: Apollo's (its adapters).
      await expectRun(post(client, page('1')), { stages: ALL, known: false });
      // Known now: the runner's, a miss (or uncached), then a hit.
      await expectRun(post(client, page('2')), { stages: ALL, known: true });
      await expectRun(post(client, page('2')), { stages: cached ? CACHED : ALL, known: true });
      // Persisted GET by hash, and GET with the text.
      await expectRun(get(client, byHash('3')), { stages: ALL, known: true });
      await expectRun(get(client, byHash('3')), { stages: cached ? CACHED : ALL, known: true });
      await expectRun(get(client, { query: QUERY, operationName: 'Page', variables: JSON.stringify({ id: '3' }) }), { stages: cached ? CACHED : ALL, known: true });
      // An APQ registration (extensions with the text) is Apollo's: a hit there too.
      const registration = { ...page('2'), extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } };
      await expectRun(post(client, registration), { stages: cached ? CACHED : ALL, known: false });
    });
  });

  it('a mutation, a result with errors (handed to Apollo) and a refusal by the limits run every stage their answer needs', async () => {
    await withTracedClient(env(), async (client, traced) => {
      const renamed = await post(client, { query: 'mutation { updateProduct(id: "4", input: { name: "Traced" }) { id } }' });
      expect(JSON.parse(renamed.body).errors).toBeUndefined();
      expect(traced()).toEqual({ stages: ALL, known: false });
      const failing = 'query Page($id: ID!) { product(id: $id) { id } }';
      await post(client, { query: failing, operationName: 'Page', variables: { id: '5' } });
      traced();
      // Known, but its result has errors: Apollo answers it, running every stage again.
      const bad = await post(client, { query: failing, operationName: 'Page', variables: { id: 'not-a-number' } });
      expect(JSON.parse(bad.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(traced()).toEqual({ stages: ALL, known: false });
      // Over the depth limit: refused before the cache is asked.
      const deep = await post(client, { query: '{ product(id: "1") { related { related { related { related { related { related { related { related { related { related { id } } } } } } } } } } } }' }, { accept: GRAPHQL_ACCEPT });
      expect(deep.statusCode).toBe(400);
      expect(traced()).toEqual({ stages: REFUSED, known: false });
    });
  });
});

describe('the stages under every limit', () => {
  it('trusted documents, rate limits and required keys: refusals and answers, known or not, run the operation stages in order', async () => {
    await withTracedClient({ CACHE: 'on', TRUSTED_DOCUMENTS: 'on', RATE_LIMIT: 'on' }, async (client, traced) => {
      const untrusted = await post(client, page('1'), { accept: GRAPHQL_ACCEPT });
      expect(JSON.parse(untrusted.body).errors[0].extensions.code).toBe('OPERATION_NOT_TRUSTED');
      expect(traced()).toEqual({ stages: REFUSED, known: false });
    });
    await withTracedClient({ CACHE: 'on', RATE_LIMIT: 'on', API_KEYS_FOR_READS: 'required' }, async (client, traced) => {
      await post(client, page('1'));
      expect(traced()).toEqual({ stages: ALL, known: false });
      // Known now: answered by the runner with the key, refused without one (Apollo words the 401).
      expect((await post(client, page('1'))).headers['ratelimit-remaining']).toBeDefined();
      expect(traced()).toEqual({ stages: CACHED, known: true });
      const anonymous = await client.injectAnonymous({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: page('1') });
      expect(anonymous.statusCode).toBe(401);
      expect(traced()).toEqual({ stages: REFUSED, known: false });
    });
  });
});
