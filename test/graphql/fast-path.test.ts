// The fast path of /graphql (src/graphql/fast-path.ts): a query Apollo has
// already run and checked is answered without Apollo's pipeline, with the
// response cache off, in process, or in Redis (the default production
// set-up): the same answer Apollo gives, byte for byte and header for header,
// by POST and GET, under both media types, whether it ran or was cached; a
// result with errors is Apollo's answer (and no statement is sent twice);
// access, rate limits, the limits and cache invalidation apply as they do in
// Apollo (both run the same stages: test/graphql/stages.test.ts).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, specifiedScalarTypes, type GraphQLInputType } from 'graphql';
import { catalogueSchema } from '../../src/graphql/federation/subgraph-schema.ts';
import { createTestClient, GRAPHQL_ACCEPT, useTestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { cacheConnected, redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts';

const catalogue = useTestCatalogue();

const QUERY = 'query Page($id: ID!) { product(id: $id) { id name features { feature value } styles { id photos { url } skus { size } } relatedIds } }';
const HASH = crypto.createHash('sha256').update(QUERY).digest('hex');

/** The headers that may differ between two answers of the same content. */
const VOLATILE = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']);
const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));

function post(client: TestClient, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  return client.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: { query, operationName: 'Page', variables } });
}

function get(client: TestClient, params: Record<string, string>, headers: Record<string, string> = {}) {
  return client.app.inject({ method: 'GET', url: `/graphql?${new URLSearchParams(params)}`, headers });
}

const byText = (id: string) => ({ query: QUERY, operationName: 'Page', variables: JSON.stringify({ id }) });
const byHash = (id: string) => ({ operationName: 'Page', variables: JSON.stringify({ id }), extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }) });

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (redisAvailable()) redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** The response cache set-ups: none, in process, and Redis with the change feed and the local tier (REDIS_URL: the default production set-up, storing on the first miss here: its default, the doorkeeper, is the describe block below's). */
const SETUPS = [
  { cache: 'off', env: () => ({ CACHE: 'off' }) },
  { cache: 'memory', env: () => ({ CACHE: 'on' }) },
  ...(redisAvailable() ? [{ cache: 'redis', env: () => ({ CACHE: 'on', REDIS_URL: redis!.url, CACHE_PREFIX: `fast${crypto.randomUUID()}:`, CACHE_ADMISSION: 'first-miss' }) }] : []),
] as const;

async function withClient(env: Record<string, string>, run: (client: TestClient) => Promise<void>, apiKey = true) {
  const client = await createTestClient(catalogue.db.url, { env: { GRAPHQL_JIT: 'on', ...env }, apiKey });
  try {
    await cacheConnected(client.server);
    // Redis's invalidation counter started now: a first miss otherwise asks
    // for it before storing, and the test's next request can reach Redis
    // before the store does (as in test/cache/graphql-cache.test.ts).
    await (client.server.cache as unknown as { store?: { checkGeneration?(): Promise<number> } } | undefined)?.store?.checkGeneration?.();
    // Rate limits in Redis count once its connection is up (until then requests pass uncounted).
    for (let i = 0; env.RATE_LIMIT === 'on' && i < 100; i++) {
      const probe = await client.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: '{ __typename }' } });
      if (probe.headers['ratelimit-remaining'] !== undefined) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    if (client.server.fastPath) client.server.fastPath.answered = 0;
    await run(client);
  } finally {
    await client.close();
  }
}

describe.each(SETUPS)('checked queries on the fast path, cache $cache', ({ cache, env }) => {
  const cached = cache !== 'off';

  it('answer what Apollo answers, by POST under both media types, run and (with a cache) cached', async () => {
    await withClient(env(), async (apolloOnly) => {
      await withClient(env(), async (client) => {
        const fast = client.server.fastPath!;
        for (const [i, accept] of [undefined, GRAPHQL_ACCEPT, 'application/json'].entries()) {
          const headers: Record<string, string> = accept ? { accept } : {};
          const id = String(5 + i);
          const viaApollo = await post(apolloOnly, QUERY, { id }, headers); // the first request of a text is Apollo's
          await post(client, QUERY, { id: '99' }, headers); // Apollo's here: now the text is checked
          const before = fast.answered;
          const run = await post(client, QUERY, { id }, headers);
          expect(fast.answered).toBe(before + 1);
          expect(run.statusCode).toBe(200);
          expect(run.body).toBe(viaApollo.body);
          expect(stable(run.headers)).toEqual(stable(viaApollo.headers));
          expect(JSON.parse(run.body).data.product.id).toBe(id);
          expect(run.headers['x-sql-statements']).toBe('1');
          expect(run.headers['x-cache']).toBe(cached ? 'miss' : undefined);
          if (!cached) continue;
          const hit = await post(client, QUERY, { id }, headers);
          expect(fast.answered).toBe(before + 2);
          expect(hit.body).toBe(viaApollo.body);
          expect(stable({ ...hit.headers, 'x-cache': 'miss', 'x-sql-statements': '1' })).toEqual(stable(viaApollo.headers));
          expect(hit.headers['x-cache']).toBe('hit');
          expect(hit.headers['x-sql-statements']).toBe('0');
        }
      });
    });
  });

  it('answer GETs (with the text, or a persisted query by hash) with Apollo\'s headers, ETag and 304', async () => {
    await withClient(env(), async (client) => {
      const fast = client.server.fastPath!;
      const viaApollo = await get(client, byText('6'), { accept: GRAPHQL_ACCEPT });
      expect(fast.answered).toBe(0);
      expect(viaApollo.headers.etag).toBeDefined();
      expect(viaApollo.headers['cache-control']).not.toBe('no-store');
      for (const [i, params] of [byText('6'), byHash('6')].entries()) {
        const early = await get(client, params, { accept: GRAPHQL_ACCEPT });
        expect(early.body).toBe(viaApollo.body);
        expect(stable({ ...early.headers, 'x-cache': viaApollo.headers['x-cache'], 'x-sql-statements': viaApollo.headers['x-sql-statements'] })).toEqual(stable(viaApollo.headers));
        expect(early.headers['x-cache']).toBe(cached ? 'hit' : undefined);
        const revalidated = await get(client, params, { accept: GRAPHQL_ACCEPT, 'if-none-match': String(early.headers.etag) });
        expect(revalidated.statusCode).toBe(304);
        expect(revalidated.body).toBe('');
        expect(fast.answered).toBe(2 * (i + 1));
      }
      // HEAD reaches the GET route: Apollo's answer (405), not an early one.
      const head = await client.app.inject({ method: 'HEAD', url: `/graphql?${new URLSearchParams(byText('6'))}`, headers: { accept: GRAPHQL_ACCEPT } });
      expect(head.statusCode).toBe(405);
      expect(fast.answered).toBe(4);
    });
  });

  it('hand a result with errors to Apollo, which answers it as always, without sending a statement twice or caching it', async () => {
    const query = 'query Page($id: ID!, $bad: ID!) { product(id: $id) { id name styles { id } } other: product(id: $bad) { id } }';
    const sent = { id: '7', bad: 'not-a-number' };
    await withClient(env(), async (apolloOnly) => {
      const viaApollo = await post(apolloOnly, query, sent);
      await withClient(env(), async (client) => {
        const fast = client.server.fastPath!;
        await post(client, query, { id: '8', bad: '9' }); // Apollo runs it: now it is checked
        for (let round = 0; round < 2; round++) {
          const handedOver = await post(client, query, sent);
          expect(fast.answered).toBe(0);
          expect(handedOver.statusCode).toBe(200);
          expect(handedOver.body).toBe(viaApollo.body);
          expect(JSON.parse(handedOver.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
          expect(stable(handedOver.headers)).toEqual(stable(viaApollo.headers));
          expect(handedOver.headers['x-sql-statements']).toBe(viaApollo.headers['x-sql-statements']);
        }
        if (cached) expect(client.server.cache!.stats).toMatchObject({ hits: 0, misses: 3 });
      });
    });
  });

  it('leave variables that do not coerce to Apollo (400 BAD_USER_INPUT)', async () => {
    await withClient(env(), async (client) => {
      await post(client, QUERY, { id: '5' });
      const wrong = await post(client, QUERY, { id: { not: 'an id' } }, { accept: GRAPHQL_ACCEPT });
      expect(client.server.fastPath!.answered).toBe(0);
      expect(wrong.statusCode).toBe(400);
      expect(JSON.parse(wrong.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    });
  });

  it('charge the operation\'s rate-limit cost once, as Apollo does, for an answer run, cached or handed over; a spent budget is Apollo\'s 429', async () => {
    // A cost unit of 1 makes a request take its whole cost in points, far more than the bucket
    // refills between two requests, so a second charge cannot hide in the refill.
    const perMinute = 20_000;
    await withClient({ ...env(), RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(perMinute), RATE_LIMIT_GRAPHQL_COST_UNIT: '1' }, async (client) => {
      const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['ratelimit-remaining']);
      type Timed = { response: Awaited<ReturnType<typeof post>>; sent: number; answered: number };
      const timed = async (query: string, variables: Record<string, unknown>): Promise<Timed> => {
        const sent = Date.now();
        const response = await post(client, query, variables);
        return { response, sent, answered: Date.now() };
      };
      // The most the bucket can refill between the charges of two requests:
      // the first's charge came after it was sent, the second's before its
      // answer (plus one for the rounding down of each).
      const refill = (a: Timed, b: Timed) => Math.ceil(((b.answered - a.sent) * perMinute) / 60_000) + 1;
      let cost = 0;
      for (let attempt = 1; ; attempt++) {
        const first = await timed(QUERY, { id: '5' }); // Apollo
        const answeredBefore = client.server.fastPath!.answered;
        const second = await timed(QUERY, { id: '5' }); // fast path (a hit with a cache)
        const third = await timed(QUERY, { id: String(5 + attempt) }); // fast path (a miss with a cache)
        const handedOver = await timed(QUERY, { id: '0' }); // an error: Apollo words it
        expect(client.server.fastPath!.answered - answeredBefore).toBe(2);
        expect(JSON.parse(handedOver.response.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
        const slack = Math.max(refill(first, second), refill(second, third), refill(third, handedOver));
        cost = remaining(first.response) - remaining(second.response);
        // A host too slow to tell a second charge from the refill measures again.
        if (cost <= 2 * slack && attempt < 3) continue;
        expect(cost).toBeGreaterThan(2 * slack); // a second charge would stand out
        expect(Math.abs(remaining(second.response) - remaining(third.response) - cost)).toBeLessThanOrEqual(slack);
        expect(Math.abs(remaining(third.response) - remaining(handedOver.response) - cost)).toBeLessThanOrEqual(slack);
        break;
      }
      let refused;
      for (let i = 0; i < 2 * Math.ceil(perMinute / cost) && !refused; i++) {
        const response = await post(client, QUERY, { id: '5' }, { accept: GRAPHQL_ACCEPT });
        if (response.statusCode === 429) refused = response;
      }
      expect(JSON.parse(refused!.body).errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(refused!.headers['x-cache']).toBeUndefined();
      expect(refused!.body).not.toContain('"product"');
    }, false);
  });

  it('run queries whose cost and caps depend on the variables, checking them per request as the limits plugin does', async () => {
    const browse = 'query Page($first: Int, $filter: ProductFilter, $orderBy: ProductOrder, $text: String!) { productConnection(first: $first, filter: $filter, orderBy: $orderBy) { edges { cursor node { id name defaultPrice } } pageInfo { hasNextPage } } search(query: $text, first: $first) { totalCount } }';
    // `orderBy: {direction: DESC}` leaves `field` to its default (graphql-jit alone failed on it).
    const within = { first: 3, filter: { priceMax: '500.00' }, orderBy: { direction: 'DESC' }, text: 'shoes' };
    await withClient({ ...env(), RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100' }, async (apolloOnly) => {
      const expected = await post(apolloOnly, browse, within, { accept: GRAPHQL_ACCEPT });
      expect(expected.statusCode).toBe(200);
      const overCap = await post(apolloOnly, browse, { ...within, first: 100_000 }, { accept: GRAPHQL_ACCEPT });
      const badText = await post(apolloOnly, browse, { ...within, text: '' }, { accept: GRAPHQL_ACCEPT });
      await withClient({ ...env(), RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100' }, async (client) => {
        const fast = client.server.fastPath!;
        const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['ratelimit-remaining']);
        const first = await post(client, browse, { ...within, first: 2 }, { accept: GRAPHQL_ACCEPT }); // Apollo: now it is checked
        // The search's words resolved again, as on the Apollo-only server: the same statements, so the same x-sql-statements.
        client.server.memo?.clear();
        const early = await post(client, browse, within, { accept: GRAPHQL_ACCEPT });
        expect(fast.answered).toBe(1);
        expect(early.body).toBe(expected.body);
        expect(stable(early.headers)).toEqual(stable(expected.headers));
        // A bigger page costs more, here as in Apollo.
        const bigger = await post(client, browse, { ...within, first: 40 }, { accept: GRAPHQL_ACCEPT });
        expect(fast.answered).toBe(2);
        const again = await post(client, browse, { ...within, first: 40 });
        // (The budget refills as time passes, a token every 600 ms here: charges are compared within one.)
        expect(remaining(early) - remaining(bigger)).toBeGreaterThan(remaining(first) - remaining(early) + 1);
        expect(Math.abs((remaining(bigger) - remaining(again)) - (remaining(early) - remaining(bigger)))).toBeLessThanOrEqual(1);
        // Over a cap, or refused by an argument check: Apollo's 400, word for word, and nothing run here, cached or not.
        for (const [variables, apollo] of [[{ ...within, first: 100_000 }, overCap], [{ ...within, text: '' }, badText]] as const) {
          const refused = await post(client, browse, variables, { accept: GRAPHQL_ACCEPT });
          expect(refused.statusCode).toBe(400);
          expect(refused.body).toBe(apollo.body);
          expect(refused.headers['x-sql-statements']).toBe('0');
        }
        expect(fast.answered).toBe(3);
      }, false);
    }, false);
  });

  it('need the key reads need: without one, neither a run nor a cached answer', async () => {
    await withClient({ ...env(), API_KEYS_FOR_READS: 'required' }, async (client) => {
      await post(client, QUERY, { id: '11' });
      expect(JSON.parse((await post(client, QUERY, { id: '11' })).body).data.product.id).toBe('11');
      for (const id of ['11', '12']) {
        const anonymous = await client.injectAnonymous({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: QUERY, operationName: 'Page', variables: { id } } });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.body).not.toContain('"product"');
      }
      expect(client.server.fastPath!.answered).toBe(1);
    });
  });

  it.skipIf(!cached)('a write makes the next answer a miss with the new data, by POST and by persisted GET', async () => {
    await withClient(env(), async (client) => {
      await post(client, QUERY, { id: '9' });
      await get(client, byHash('9'));
      expect((await get(client, byHash('9'))).headers['x-cache']).toBe('hit');
      expect((await post(client, QUERY, { id: '9' })).headers['x-cache']).toBe('hit');
      const renamed = await client.post('mutation { updateProduct(id: "9", input: { name: "Renamed on the fast path" }) { id } }');
      expect(renamed.body.errors).toBeUndefined();
      // (The next may be a miss again: an answer read within moments of a write
      // the change feed heard is not kept, HEARD_MARGIN_MS in src/cache/response-cache.ts.)
      const [missed, next] = [await get(client, byHash('9')), await post(client, QUERY, { id: '9' })];
      expect(missed.headers['x-cache']).toBe('miss');
      for (const response of [missed, next]) expect(JSON.parse(response.body).data.product.name).toBe('Renamed on the fast path');
      expect(client.server.fastPath!.answered).toBe(5);
    });
  });

  it.skipIf(!cached)('concurrent identical misses reach Postgres once: one runs, the others share its answer', async () => {
    await withClient(env(), async (client) => {
      await post(client, QUERY, { id: '1' });
      const responses = await Promise.all(Array.from({ length: 10 }, () => post(client, QUERY, { id: '13' })));
      expect(new Set(responses.map((r) => r.body)).size).toBe(1);
      expect(responses.reduce((n, r) => n + Number(r.headers['x-sql-statements']), 0)).toBe(1);
      expect(responses.map((r) => r.headers['x-cache']).sort()).toEqual(['miss', ...Array(9).fill('shared')]);
    });
  });
});

describe.skipIf(!redisAvailable())('the doorkeeper on the fast path (CACHE_ADMISSION=doorkeeper)', () => {
  const env = () => ({ CACHE: 'on', REDIS_URL: redis!.url, CACHE_PREFIX: `door${crypto.randomUUID()}:`, CACHE_ADMISSION: 'doorkeeper' });

  it('answers a cheap query\'s first sighting, its second (stored) and then its hit as Apollo does, by POST and by persisted GET', async () => {
    await withClient(env(), async (apolloOnly) => {
      await withClient(env(), async (client) => {
        const fast = client.server.fastPath!;
        await post(client, QUERY, { id: '99' }); // Apollo's: now the text is checked
        const viaApollo = await post(apolloOnly, QUERY, { id: '5' });
        expect(viaApollo.headers['x-cache']).toBe('miss');
        for (const [round, expected] of [[0, { cache: 'miss', sql: '1' }], [1, { cache: 'miss', sql: '1' }], [2, { cache: 'hit', sql: '0' }]] as const) {
          const before = fast.answered;
          const answer = await post(client, QUERY, { id: '5' });
          expect(fast.answered).toBe(before + 1);
          expect(answer.body).toBe(viaApollo.body);
          expect(stable({ ...answer.headers, 'x-sql-statements': '1' })).toEqual(stable({ ...viaApollo.headers, 'x-cache': expected.cache }));
          expect([round, answer.headers['x-sql-statements']]).toEqual([round, expected.sql]);
          await new Promise((r) => setTimeout(r, 50)); // the store of the second sighting lands
        }
        await withClient(env(), async (apolloGet) => {
          const getApollo = await get(apolloGet, byText('6'), { accept: GRAPHQL_ACCEPT }); // the text's first request there: Apollo's
          expect(apolloGet.server.fastPath!.answered).toBe(0);
          expect(getApollo.headers.etag).toBeDefined();
          for (const expected of ['miss', 'miss', 'hit']) {
            const before = fast.answered;
            const early = await get(client, byHash('6'), { accept: GRAPHQL_ACCEPT });
            expect(fast.answered).toBe(before + 1);
            expect(early.body).toBe(getApollo.body);
            expect(stable({ ...early.headers, 'x-sql-statements': getApollo.headers['x-sql-statements'] })).toEqual(stable({ ...getApollo.headers, 'x-cache': expected }));
            await new Promise((r) => setTimeout(r, 50));
          }
        });
      });
    });
  });
});

describe('the variables the known-operation path hands to compiled queries', () => {
  it('graphql-js\'s coerced values pass through graphql-jit\'s own parsing of them unchanged', () => {
    // The fast path coerces a request's variables once (graphql-js) and hands
    // the coerced values to the compiled query, which parses them again as
    // sent values: every enum's values must be their names, and every custom
    // scalar an input can hold must parse its own output to itself.
    const SAMPLES: Record<string, unknown[]> = { Money: ['140', '0.5', 99999999.99, '12.30'], _Any: [{ __typename: 'Product', id: '1' }] };
    const schema = catalogueSchema({ federation: true });
    const seen = new Set<string>();
    const visit = (type: GraphQLInputType): void => {
      const named = getNamedType(type);
      if (seen.has(named.name)) return;
      seen.add(named.name);
      if (isEnumType(named)) for (const value of named.getValues()) expect(value.value, `${named.name}.${value.name}`).toBe(value.name);
      else if (isScalarType(named) && !specifiedScalarTypes.some((s) => s.name === named.name)) {
        expect(SAMPLES[named.name], `samples of the input scalar ${named.name}`).toBeDefined();
        for (const sample of SAMPLES[named.name]!) {
          const once = named.parseValue(sample);
          expect(named.parseValue(once)).toEqual(once);
        }
      } else if (isInputObjectType(named)) for (const field of Object.values(named.getFields())) visit(field.type);
      else if (isListType(type) || isNonNullType(type)) visit(type.ofType);
    };
    for (const root of [schema.getQueryType(), schema.getMutationType()]) {
      for (const field of Object.values(root?.getFields() ?? {})) for (const argument of field.args) visit(argument.type);
    }
    expect(seen.has('ProductOrderField')).toBe(true);
  });
});
