// A known query runs without Apollo's pipeline (src/graphql/direct-execution.ts):
// the same answer Apollo gives, byte for byte and header for header, by POST
// and GET, under both media types; a result with errors is Apollo's answer
// (and no statement is sent twice); access, rate limits and variable errors as
// before.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GRAPHQL_ACCEPT, useTestCatalogue, withTestClient, type TestClient } from '../support/catalogue-app.ts';

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

const withClient = (env: Record<string, string>, run: (client: TestClient) => Promise<void>, apiKey = true) =>
  withTestClient(catalogue.db.url, { env: { CACHE: 'off', GRAPHQL_JIT: 'on', ...env }, apiKey }, run);

describe('known queries run before Apollo', () => {
  it('answer what Apollo answered, by POST under both media types', async () => {
    await withClient({}, async (client) => {
      const direct = client.server.direct!;
      for (const accept of [undefined, GRAPHQL_ACCEPT, 'application/json']) {
        const headers: Record<string, string> = accept ? { accept } : {};
        // Another document text each round: the first request of a text is Apollo's.
        const query = `${QUERY}${' '.repeat(direct.answered + 1)}`;
        const before = direct.answered;
        const viaApollo = await post(client, query, { id: '5' }, headers);
        expect(direct.answered).toBe(before);
        const early = await post(client, query, { id: '5' }, headers);
        expect(direct.answered).toBe(before + 1);
        expect(early.statusCode).toBe(200);
        expect(early.body).toBe(viaApollo.body);
        expect(stable(early.headers)).toEqual(stable(viaApollo.headers));
        expect(JSON.parse(early.body).data.product.id).toBe('5');
        expect(early.headers['x-sql-statements']).toBe('1');
      }
    });
  });

  it('answer GETs (with the text, or a persisted query by hash) with Apollo\'s headers, ETag and 304', async () => {
    await withClient({}, async (client) => {
      const direct = client.server.direct!;
      const byText = { query: QUERY, operationName: 'Page', variables: JSON.stringify({ id: '6' }) };
      const viaApollo = await get(client, byText, { accept: GRAPHQL_ACCEPT });
      expect(direct.answered).toBe(0);
      expect(viaApollo.headers.etag).toBeDefined();
      const byHash = { operationName: 'Page', variables: JSON.stringify({ id: '6' }), extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }) };
      for (const params of [byText, byHash]) {
        const early = await get(client, params, { accept: GRAPHQL_ACCEPT });
        expect(early.body).toBe(viaApollo.body);
        expect(stable(early.headers)).toEqual(stable(viaApollo.headers));
        const revalidated = await get(client, params, { accept: GRAPHQL_ACCEPT, 'if-none-match': String(early.headers.etag) });
        expect(revalidated.statusCode).toBe(304);
      }
      expect(direct.answered).toBe(4);
      // HEAD reaches the GET route: Apollo's answer (405), not an early one.
      const head = await client.app.inject({ method: 'HEAD', url: `/graphql?${new URLSearchParams(byText)}`, headers: { accept: GRAPHQL_ACCEPT } });
      expect(head.statusCode).toBe(405);
      expect(direct.answered).toBe(4);
    });
  });

  it('hand a result with errors to Apollo, which answers it as always without sending a statement twice', async () => {
    const query = 'query Page($id: ID!, $bad: ID!) { product(id: $id) { id name styles { id } } other: product(id: $bad) { id } }';
    const sent = { id: '7', bad: 'not-a-number' };
    await withClient({}, async (apolloOnly) => {
      const viaApollo = await post(apolloOnly, query, sent);
      await withClient({}, async (client) => {
        const direct = client.server.direct!;
        await post(client, query, { id: '8', bad: '9' }); // Apollo runs it: now it is known
        const handedOver = await post(client, query, sent);
        expect(direct.answered).toBe(0);
        expect(handedOver.statusCode).toBe(200);
        expect(handedOver.body).toBe(viaApollo.body);
        expect(JSON.parse(handedOver.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(stable(handedOver.headers)).toEqual(stable(viaApollo.headers));
        expect(handedOver.headers['x-sql-statements']).toBe(viaApollo.headers['x-sql-statements']);
      });
    });
  });

  it('leave variables that do not coerce to Apollo (400 BAD_USER_INPUT)', async () => {
    await withClient({}, async (client) => {
      await post(client, QUERY, { id: '5' });
      const wrong = await post(client, QUERY, { id: { not: 'an id' } }, { accept: GRAPHQL_ACCEPT });
      expect(client.server.direct!.answered).toBe(0);
      expect(wrong.statusCode).toBe(400);
      expect(JSON.parse(wrong.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    });
  });

  it('charge the operation\'s rate-limit cost once, as Apollo does, also for a result handed over', async () => {
    await withClient({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '400' }, async (client) => {
      const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['ratelimit-remaining']);
      const first = await post(client, QUERY, { id: '5' }); // Apollo
      const second = await post(client, QUERY, { id: '5' }); // direct
      const third = await post(client, QUERY, { id: '5' }); // direct
      expect(client.server.direct!.answered).toBe(2);
      const cost = remaining(first) - remaining(second);
      expect(cost).toBeGreaterThanOrEqual(1);
      expect(remaining(second) - remaining(third)).toBe(cost);
      const handedOver = await post(client, QUERY, { id: '0' }); // an error: Apollo words it
      expect(JSON.parse(handedOver.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(remaining(third) - remaining(handedOver)).toBe(cost);
    }, false);
  });

  it('run queries whose cost and caps depend on the variables, checking them per request as the limits plugin does', async () => {
    const browse = 'query Page($first: Int, $filter: ProductFilter, $orderBy: ProductOrder, $text: String!) { productConnection(first: $first, filter: $filter, orderBy: $orderBy) { edges { cursor node { id name defaultPrice } } pageInfo { hasNextPage } } search(query: $text, first: $first) { totalCount } }';
    const within = { first: 3, filter: { priceMax: '500.00' }, orderBy: { field: 'PRICE', direction: 'DESC' }, text: 'shoes' };
    await withClient({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100' }, async (apolloOnly) => {
      const expected = await post(apolloOnly, browse, within, { accept: GRAPHQL_ACCEPT });
      expect(expected.statusCode).toBe(200);
      const overCap = await post(apolloOnly, browse, { ...within, first: 100_000 }, { accept: GRAPHQL_ACCEPT });
      const badText = await post(apolloOnly, browse, { ...within, text: '' }, { accept: GRAPHQL_ACCEPT });
      await withClient({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100' }, async (client) => {
        const direct = client.server.direct!;
        const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['ratelimit-remaining']);
        const first = await post(client, browse, within, { accept: GRAPHQL_ACCEPT }); // Apollo: now it is known
        const early = await post(client, browse, within, { accept: GRAPHQL_ACCEPT });
        expect(direct.answered).toBe(1);
        // Charged what Apollo charged for the same request (a full budget of 100 before it).
        expect(Math.abs((remaining(first) - remaining(early)) - (100 - remaining(first)))).toBeLessThanOrEqual(1);
        expect(early.body).toBe(expected.body);
        expect(stable(early.headers)).toEqual(stable(first.headers));
        // A bigger page costs more, here as in Apollo.
        const bigger = await post(client, browse, { ...within, first: 40 }, { accept: GRAPHQL_ACCEPT });
        expect(direct.answered).toBe(2);
        const again = await post(client, browse, { ...within, first: 40 });
        // (The budget refills as time passes, a token every 600 ms here: charges are compared within one.)
        expect(remaining(early) - remaining(bigger)).toBeGreaterThan(remaining(first) - remaining(early) + 1);
        expect(Math.abs((remaining(bigger) - remaining(again)) - (remaining(early) - remaining(bigger)))).toBeLessThanOrEqual(1);
        // Over a cap, or refused by an argument check: Apollo's 400, word for word, and nothing run here.
        for (const [variables, apollo] of [[{ ...within, first: 100_000 }, overCap], [{ ...within, text: '' }, badText]] as const) {
          const refused = await post(client, browse, variables, { accept: GRAPHQL_ACCEPT });
          expect(refused.statusCode).toBe(400);
          expect(refused.body).toBe(apollo.body);
          expect(refused.headers['x-sql-statements']).toBe('0');
        }
        expect(direct.answered).toBe(3);
      }, false);
    }, false);
  });

  it('need the key reads need', async () => {
    await withClient({ API_KEYS_FOR_READS: 'required' }, async (client) => {
      await post(client, QUERY, { id: '11' });
      expect(JSON.parse((await post(client, QUERY, { id: '11' })).body).data.product.id).toBe('11');
      const anonymous = await client.injectAnonymous({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: QUERY, operationName: 'Page', variables: { id: '11' } } });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.body).not.toContain('"product"');
      expect(client.server.direct!.answered).toBe(1);
    });
  });
});
