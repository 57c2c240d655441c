// The catalogue as an Apollo Federation 2 subgraph (FEDERATION=on,
// docs/federation.md), composed by @apollo/gateway with a small reviews
// subgraph written here (its own Apollo Server, extending Product with
// `reviews`). Both are real servers on loopback ports; the gateway composes
// them from their `_service { sdl }` (IntrospectAndCompose). What is held:
// a supergraph query over a page of products with their reviews, or over
// reviews with their products, costs the catalogue a constant number of
// statements however many products (counted by the catalogue's own
// x-sql-statements headers and by its process total); `_entities` resolves
// any number of references in one statement; and without the setting the
// schema has no federation fields. Also: a bad representation is a
// BAD_USER_INPUT naming it, and answers are tagged and cached like any query.
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { productTag } from '../../src/cache/response-cache.ts';
import { CATALOGUE_TAG } from '../../src/http/http-caching.ts';
import { EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

/** A review subgraph: every product gets id % 4 reviews; `latestReviews` points at products by id. */
const REVIEWS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])

  type Review {
    id: ID!
    stars: Int!
    product: Product!
  }

  extend type Product @key(fields: "id") {
    id: ID!
    reviews: [Review!]!
  }

  type Query {
    "The newest reviews, of the products with the given ids."
    latestReviews(productIds: [ID!]!): [Review!]!
  }
`;

interface Review { id: string; stars: number; productId: string }

function reviewsOf(productId: string): Review[] {
  return Array.from({ length: Number(productId) % 4 }, (_, i) => ({ id: `${productId}-${i}`, stars: ((Number(productId) + i) % 5) + 1, productId }));
}

async function startReviewsSubgraph(): Promise<{ url: string; server: ApolloServer }> {
  const server = new ApolloServer({
    plugins: [ApolloServerPluginInlineTraceDisabled()],
    schema: buildSubgraphSchema({
      typeDefs: parse(REVIEWS_SDL),
      resolvers: {
        Query: { latestReviews: (_: unknown, { productIds }: { productIds: string[] }) => productIds.map((id) => ({ id: `${id}-latest`, stars: 5, productId: id })) },
        Review: { product: (review: Review) => ({ __typename: 'Product', id: review.productId }) },
        Product: {
          __resolveReference: (reference: { id: string }) => reference,
          reviews: (product: { id: string }) => reviewsOf(product.id),
        },
      },
    }),
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { url, server };
}

const catalogue = useTestCatalogue();

describe.each(EXECUTORS)('the catalogue subgraph behind @apollo/gateway, with $engine', ({ env }) => {
  const client = useTestClient(catalogue, { env: { ...env, FEDERATION: 'on' } });
  let reviews: { url: string; server: ApolloServer };
  let gateway: ApolloServer;
  /** x-sql-statements of every response the catalogue gave the gateway, per supergraph operation. */
  let catalogueStatements: number[] = [];
  let productIds: string[];

  beforeAll(async () => {
    productIds = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id')).map((row) => String(row.id));
    const catalogueUrl = `${await client.app.listen({ port: 0, host: '127.0.0.1' })}/graphql`;
    reviews = await startReviewsSubgraph();
    gateway = new ApolloServer({
      gateway: new ApolloGateway({
        supergraphSdl: new IntrospectAndCompose({ subgraphs: [{ name: 'catalogue', url: catalogueUrl }, { name: 'reviews', url: reviews.url }] }),
        buildService: ({ name, url }) => new (class extends RemoteGraphQLDataSource {
          override didReceiveResponse: RemoteGraphQLDataSource['didReceiveResponse'] = async ({ response }) => {
            if (name === 'catalogue') catalogueStatements.push(Number(response.http?.headers.get('x-sql-statements')));
            return response;
          };
        })({ url }),
      }),
    });
    await gateway.start();
  });

  afterAll(async () => {
    await gateway?.stop();
    await reviews?.server.stop();
  });

  /** Runs a supergraph operation; returns its data and what the catalogue spent on it. */
  async function supergraph<T>(query: string, variables: Record<string, unknown> = {}) {
    catalogueStatements = [];
    const before = client.server.database.statements.total;
    const response = await gateway.executeOperation({ query, variables });
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    expect(response.body.singleResult.errors).toBeUndefined();
    const statements = client.server.database.statements.total - before;
    // The headers the catalogue sent the gateway add up to what its process ran.
    expect(catalogueStatements.reduce((a, b) => a + b, 0)).toBe(statements);
    return { data: response.body.singleResult.data as T, statements, fetches: catalogueStatements.length };
  }

  it('composes: the catalogue\'s _service SDL has the keys, and the supergraph has both subgraphs\' fields', async () => {
    const sdl = await client.post<{ _service: { sdl: string } }>('{ _service { sdl } }');
    expect(sdl.body.data?._service.sdl).toMatch(/type Product\b[^{]*@key\(fields: "id"\)/);
    expect(sdl.body.data?._service.sdl).toMatch(/type Style\b[^{]*@key\(fields: "id"\)/);
    const { data } = await supergraph<{ product: { name: string; reviews: { stars: number }[] } }>(`{ product(id: "${productIds[2]}") { name reviews { stars } } }`);
    expect(data.product.reviews).toEqual(reviewsOf(productIds[2]!).map(({ stars }) => ({ stars })));
  });

  it('a page of N products with their reviews costs the catalogue one statement, for N = 1, 10 and 50', async () => {
    const counts: Record<number, number> = {};
    for (const count of [1, 10, 50]) {
      const { data, statements, fetches } = await supergraph<{ products: { id: string; name: string; reviews: { id: string; stars: number }[] }[] }>(
        'query Page($count: Int!) { products(count: $count) { id name reviews { id stars } } }', { count });
      expect(data.products.map((p) => p.id)).toEqual(productIds.slice(0, count));
      for (const product of data.products) expect(product.reviews.map((r) => r.id)).toEqual(reviewsOf(product.id).map((r) => r.id));
      expect(fetches).toBe(1);
      counts[count] = statements;
    }
    expect(counts).toEqual({ 1: 1, 10: 1, 50: 1 });
  });

  it('reviews with their products (N references through _entities) cost the catalogue one statement per level, for N = 1, 10 and 50', async () => {
    const counts: Record<number, number> = {};
    for (const size of [1, 10, 50]) {
      // Ids spread over the catalogue, in no order, the last one twice (one reference, as the gateway dedupes none).
      const ids = Array.from({ length: size }, (_, i) => productIds[(i * 7 + 3) % productIds.length]!).reverse();
      const { data, statements, fetches } = await supergraph<{ latestReviews: { product: { id: string; name: string; styles: { id: string }[]; related: { id: string }[] } }[] }>(
        `query Latest($ids: [ID!]!) { latestReviews(productIds: $ids) { product { id name styles(first: 1) { id } related(first: 2) { id name } } } }`, { ids });
      expect(data.latestReviews.map((r) => r.product.id)).toEqual(ids);
      const expected = await catalogue.direct.rows<{ id: number; name: string }>('SELECT id, name FROM products WHERE id = ANY($1::int[])', [ids.map(Number)]);
      const names = new Map(expected.map((row) => [String(row.id), row.name]));
      for (const { product } of data.latestReviews) expect(product.name).toBe(names.get(product.id));
      expect(data.latestReviews.some((r) => r.product.styles.length === 1 && r.product.related.length > 0)).toBe(true);
      expect(fetches).toBe(1);
      // the referenced products, the style pages, the related pages
      counts[size] = statements;
    }
    expect(counts).toEqual({ 1: 3, 10: 3, 50: 3 });
  });

  it('_entities resolves any number of product and style references in one statement each, null for unknown ones', async () => {
    const styles = await catalogue.direct.rows<{ id: number; name: string; product_id: number }>('SELECT id, name, product_id FROM styles ORDER BY id DESC LIMIT 30');
    const representations = [
      ...productIds.slice(0, 40).map((id) => ({ __typename: 'Product', id })),
      ...styles.map((style) => ({ __typename: 'Style', id: String(style.id) })),
      { __typename: 'Product', id: '2147483647' },
    ];
    const response = await client.post<{ _entities: ({ id: string; name: string; product?: { id: string } } | null)[] }>(
      'query E($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id name } ... on Style { id name product { id } } } }', { r: representations });
    expect(response.body.errors).toBeUndefined();
    const entities = response.body.data!._entities;
    expect(entities).toHaveLength(representations.length);
    expect(entities.slice(0, 40).map((e) => e?.id)).toEqual(productIds.slice(0, 40));
    expect(entities.slice(40, 70)).toEqual(styles.map((s) => ({ id: String(s.id), name: s.name, product: { id: String(s.product_id) } })));
    expect(entities.at(-1)).toBeNull();
    // the products, the styles, and the styles' products that were not among the products
    const loadedAlready = new Set(productIds.slice(0, 40));
    expect(response.statements).toBe(styles.every((s) => loadedAlready.has(String(s.product_id))) ? 2 : 3);
  });

  it('answers a representation that names no entity, or whose id is not an id, with BAD_USER_INPUT naming it (never an internal error)', async () => {
    const query = 'query E($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id } } }';
    for (const bad of [{ __typename: 'Feature', id: '1' }, { id: '1' }, 'x', { __typename: 'Query' }]) {
      const response = await client.post(query, { r: [{ __typename: 'Product', id: '1' }, bad] });
      expect(response.body.errors?.[0]?.extensions, JSON.stringify(bad)).toMatchObject({ code: 'BAD_USER_INPUT', field: 'representations' });
      expect(response.body.errors?.[0]?.message).toMatch(/^representations\[1\] must be an object whose __typename is one of Product, Style/);
    }
    for (const id of ['abc', '0', 7.5, null, undefined]) {
      const badId = await client.post(query, { r: [{ __typename: 'Product', id: '1' }, { __typename: 'Style', id }] });
      expect(badId.body.errors?.[0], JSON.stringify(id)).toMatchObject({ path: ['_entities'], extensions: { code: 'BAD_USER_INPUT', field: 'representations[1].id' } });
    }
  });

  it('tags an _entities answer with the products it shows, a style\'s product included', async () => {
    const [style] = await catalogue.direct.rows<{ id: number; product_id: number }>('SELECT id, product_id FROM styles ORDER BY id LIMIT 1');
    const response = await client.get('query E($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id } ... on Style { id } } }',
      { r: [{ __typename: 'Style', id: String(style!.id) }, { __typename: 'Product', id: productIds.at(-1) }] });
    expect(response.body.errors).toBeUndefined();
    expect(new Set(String(response.headers['surrogate-key']).split(' '))).toEqual(new Set([productTag(style!.product_id), productTag(Number(productIds.at(-1))), CATALOGUE_TAG]));
  });

  it('limits and cost apply to _entities: sized by its references, capped like any list argument', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ __typename: 'Product', id: String(i + 1) }));
    const response = await client.post('query E($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id } } }', { r: many });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toBe('representations must have at most 100 entries (got 101)');
    expect(response.statements).toBe(0);
  });
});

describe('without FEDERATION=on', () => {
  const client = useTestClient(catalogue, { env: { FEDERATION: 'off' } });

  it('the schema has no _service or _entities', async () => {
    const response = await client.post('{ _service { sdl } }');
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('FEDERATION=on cannot be combined with TRUSTED_DOCUMENTS=on, and says so', () => {
    expect(() => loadConfig({ FEDERATION: 'on', TRUSTED_DOCUMENTS: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ FEDERATION: 'on', TRUSTED_DOCUMENTS: 'on' })).toThrow(/enforce trusted documents \(persisted queries\) at the router/);
    expect(() => loadConfig({ FEDERATION: 'maybe' })).toThrow(/FEDERATION/);
  });
});

describe('_entities answers in the response cache', () => {
  const client = useTestClient(catalogue, { env: { FEDERATION: 'on', CACHE: 'on' } });

  it('are cached, and dropped by a write to a product they show', async () => {
    const [row] = await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id DESC LIMIT 1');
    const id = String(row!.id);
    const query = 'query E($r: [_Any!]!) { _entities(representations: $r) { ... on Product { id name } } }';
    const variables = { r: [{ __typename: 'Product', id }] };
    const first = await client.post(query, variables);
    expect(first.headers['x-cache']).toBe('miss');
    const again = await client.post(query, variables);
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.statements).toBe(0);
    const renamed = await client.post('mutation U($id: ID!) { updateProduct(id: $id, input: { name: "Renamed through a write" }) { id } }', { id });
    expect(renamed.body.errors).toBeUndefined();
    const after = await client.post<{ _entities: { name: string }[] }>(query, variables);
    expect(after.headers['x-cache']).toBe('miss');
    expect(after.body.data?._entities[0]?.name).toBe('Renamed through a write');
  });
});
