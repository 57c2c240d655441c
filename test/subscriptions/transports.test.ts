// productChanged over both transports, with real clients against the real
// server on a real port: graphql-ws's client, Apollo Client's GraphQLWsLink,
// graphql-sse's client. Each subscriber gets every id's current state first,
// then an event for each committed change, whoever made it (a GraphQL
// mutation, a REST write, SQL by hand), and null once the product is deleted.
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { Received, sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';
import { until } from '../support/wait.ts';

const PRODUCT_LIVE = `subscription ProductLive($ids: [ID!]!) {
  productChanged(ids: $ids) { id product { id name version styles { id skus { id size quantity } } } }
}`;

describe('productChanged', () => {
  const catalogue = useTestCatalogue();
  const client = useTestClient(catalogue);
  let base: string;
  let ids: number[];

  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const rows = await catalogue.direct.rows<{ id: number }>(`SELECT DISTINCT s.product_id AS id FROM styles s JOIN skus k ON k.style_id = s.id ORDER BY 1 LIMIT 6`);
    ids = rows.map((r) => r.id);
  });

  const nameOf = async (id: number) => (await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id])).name;

  it('graphql-ws: current state first, then each change by any path, then null once deleted', async () => {
    const [a, b] = ids as [number, number];
    const ws = wsClient(base, { apiKey: client.apiKey });
    const { received, dispose } = subscribeWs(ws, { query: PRODUCT_LIVE, variables: { ids: [String(a), String(b)] } });
    try {
      await received.until((r) => r.latest(a) !== undefined && r.latest(b) !== undefined, 30_000, 'both current states');
      expect(received.latest(a)?.name).toBe(await nameOf(a));
      expect(received.latest(b)?.name).toBe(await nameOf(b));

      // A GraphQL mutation.
      const renamed = await client.post(`mutation { updateProduct(id: "${a}", input: { name: "Live A" }) { id } }`);
      expect(renamed.status).toBe(200);
      await received.until((r) => r.latest(a)?.name === 'Live A', 30_000, 'the mutation');

      // REST.
      const put = await client.app.inject({ method: 'PUT', url: `/products/${b}`, payload: { name: 'Live B' }, headers: { 'content-type': 'application/json' } });
      expect(put.statusCode).toBe(200);
      await received.until((r) => r.latest(b)?.name === 'Live B', 30_000, 'the REST write');

      // SQL by hand: a sku's quantity.
      const sku = await catalogue.direct.one<{ id: number; quantity: number }>(
        'SELECT k.id, k.quantity FROM skus k JOIN styles s ON s.id = k.style_id WHERE s.product_id = $1 ORDER BY k.id LIMIT 1', [a]);
      await catalogue.direct.rows('UPDATE skus SET quantity = $2 WHERE id = $1', [sku.id, sku.quantity + 7]);
      const quantityOf = (r: Received) => r.latest(a)?.styles.flatMap((s: { skus: { id: string; quantity: number }[] }) => s.skus).find((k: { id: string }) => k.id === String(sku.id))?.quantity;
      await received.until((r) => quantityOf(r) === sku.quantity + 7, 30_000, 'the SQL write');

      // Deleted: null.
      const deleted = await client.post(`mutation { deleteProduct(id: "${b}") }`);
      expect(deleted.body.errors).toBeUndefined();
      await received.until((r) => r.latest(b) === null, 30_000, 'the deletion');
      expect(received.error).toBeUndefined();
    } finally {
      dispose();
      await ws.dispose();
    }
  });

  it('graphql-sse: the same over Server-Sent Events', async () => {
    const a = ids[2]!;
    const sse = sseClient(base, { apiKey: client.apiKey });
    const { received, dispose } = subscribeSse(sse, { query: PRODUCT_LIVE, variables: { ids: [String(a)] } });
    try {
      await received.until((r) => r.latest(a) !== undefined, 30_000, 'the current state');
      expect(received.latest(a)?.name).toBe(await nameOf(a));
      await catalogue.direct.rows(`UPDATE products SET name = 'Streamed' WHERE id = $1`, [a]);
      await received.until((r) => r.latest(a)?.name === 'Streamed', 30_000, 'the SQL write');
    } finally {
      dispose();
      sse.dispose();
    }
  });

  it('Apollo Client with GraphQLWsLink', async () => {
    const a = ids[3]!;
    const ws = wsClient(base, { apiKey: client.apiKey });
    const apollo = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
    const received = new Received();
    const subscription = apollo.subscribe({ query: gql(PRODUCT_LIVE), variables: { ids: [String(a)] } }).subscribe({
      next: (result) => received.push(result as never),
      error: (error: unknown) => received.end(error),
      complete: () => received.end(),
    });
    try {
      await received.until((r) => r.latest(a) !== undefined, 30_000, 'the current state');
      await client.post(`mutation { updateProduct(id: "${a}", input: { name: "Apollo live" }) { id } }`);
      await received.until((r) => r.latest(a)?.name === 'Apollo live', 30_000, 'the mutation');
      // Normalised like any query's result: the cache holds the product as it is now.
      expect((apollo.cache.extract() as Record<string, unknown>)[`Product:${a}`]).toMatchObject({ name: 'Apollo live' });
    } finally {
      subscription.unsubscribe();
      await ws.dispose();
    }
  });

  it('Apollo Client: a watched query follows a pushed change through the normalised cache, without asking the server again', async () => {
    const a = ids[3]!;
    const ws = wsClient(base, { apiKey: client.apiKey });
    let httpRequests = 0;
    const http = new HttpLink({
      uri: `${base}/graphql`,
      headers: { authorization: `Bearer ${client.apiKey}` },
      fetch: (input, init) => { httpRequests++; return fetch(input, init); },
    });
    // Queries over HTTP, subscriptions over the WebSocket: the split Apollo documents.
    const link = ApolloLink.split(({ query }) => query.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'subscription'), new GraphQLWsLink(ws), http);
    const apollo = new ApolloClient({ link, cache: new InMemoryCache() });
    const names: string[] = [];
    const watched = apollo.watchQuery({ query: gql`query Page($id: ID!) { product(id: $id) { id name } }`, variables: { id: String(a) } }).subscribe({
      next: (result) => { const name = (result.data as { product?: { name: string } } | undefined)?.product?.name; if (name) names.push(name); },
    });
    const received = new Received();
    const live = apollo.subscribe({ query: gql(PRODUCT_LIVE), variables: { ids: [String(a)] } }).subscribe({
      next: (result) => received.push(result as never),
      error: (error: unknown) => received.end(error),
    });
    try {
      await received.until((r) => r.latest(a) !== undefined && names.length > 0, 30_000, 'the query and the current state');
      expect(httpRequests).toBe(1);
      await catalogue.direct.rows(`UPDATE products SET name = 'Watched live' WHERE id = $1`, [a]);
      await received.until(() => names.at(-1) === 'Watched live', 30_000, 'the watched query showing the change');
      // The query's own result was never fetched again: the event updated Product:<id> in the cache.
      expect(httpRequests).toBe(1);
    } finally {
      live.unsubscribe();
      watched.unsubscribe();
      await ws.dispose();
    }
  });

  it('subscribers with the same document and variables share one execution and one statement per change', async () => {
    const a = ids[4]!;
    const clients = Array.from({ length: 3 }, () => wsClient(base, { apiKey: client.apiKey }));
    // 30 subscribers on 3 connections, the same selection; half also watch another product.
    const subscriptions = Array.from({ length: 30 }, (_, i) => subscribeWs(clients[i % 3]!, {
      query: PRODUCT_LIVE, variables: { ids: i % 2 ? [String(a), String(ids[5])] : [String(a)] },
    }));
    try {
      for (const [i, { received }] of subscriptions.entries()) {
        await received.until((r) => r.latest(a) !== undefined && (i % 2 === 0 || r.latest(ids[5]!) !== undefined), 30_000, 'the current states');
      }
      const { hub } = client.server.live!;
      // A subscriber that came while its job ran got the job's result and still has its own first read
      // pending: that batch belongs to the subscriptions, not to the change, so it runs before the count.
      await until('the hub idle', () => hub.idle);
      const executions = hub.stats.executions;
      const statements = hub.stats.statements;
      await catalogue.direct.rows(`UPDATE products SET name = 'Shared' WHERE id = $1`, [a]);
      for (const { received } of subscriptions) await received.until((r) => r.latest(a)?.name === 'Shared', 30_000, 'the change');
      await until('the hub idle', () => hub.idle);
      expect(hub.stats.executions - executions).toBe(1);
      expect(hub.stats.statements - statements).toBe(1);
    } finally {
      for (const { dispose } of subscriptions) dispose();
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });
});
