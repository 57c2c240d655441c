// Apollo Client 4 (core, InMemoryCache) against the real server over real HTTP:
// what a browser app built on it gets from this API today. A watched product
// page follows a mutation's result without refetching, a list page and a
// detail page share normalised Product entries, and the persisted-queries link
// over GET misses once, registers the query, and then hits. Every request the
// clients send goes through a recording fetch, so "no request" is checked, not
// assumed. The response cache is on (in-process): every write here goes
// through the API, so it is invalidated as in production.
import crypto from 'node:crypto';
import { ApolloClient, gql, HttpLink, InMemoryCache, type TypedDocumentNode } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { sentByGet } from '../../src/graphql/fast-path.ts';

/** One HTTP request an Apollo Client sent, with what came back. */
interface SentRequest {
  method: string;
  operationName: string | undefined;
  /** The query text, when the request carried one (a hash-only APQ request does not). */
  query: string | undefined;
  variables: Record<string, unknown> | undefined;
  extensions: Record<string, any> | undefined;
  /** GET's `extensions` parameter as the client spelled it. */
  extensionsText?: string;
  status?: number;
  headers?: Headers;
  body?: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** Node's fetch, recording every request into `log` (GET parameters or the JSON body) and its response. */
function recordingFetch(log: SentRequest[]): typeof fetch {
  return async (...[input, init]: Parameters<typeof fetch>): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? 'GET').toUpperCase();
    const json = (text: string | null | undefined) => (text ? JSON.parse(text) as Record<string, any> : undefined);
    const params: Record<string, any> = method === 'GET'
      ? { query: url.searchParams.get('query') ?? undefined, operationName: url.searchParams.get('operationName') ?? undefined,
        variables: json(url.searchParams.get('variables')), extensions: json(url.searchParams.get('extensions')) }
      : json(String(init?.body)) ?? {};
    const entry: SentRequest = { method, operationName: params.operationName, query: params.query, variables: params.variables, extensions: params.extensions,
      extensionsText: method === 'GET' ? url.searchParams.get('extensions') ?? undefined : undefined };
    log.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    entry.headers = response.headers;
    entry.body = await response.clone().json().catch(() => undefined) as SentRequest['body'];
    return response;
  };
}

// The documents a product page, a list page and a detail page would send.
interface PageStyle {
  __typename: 'Style'; id: string; name: string; originalPrice: string; salePrice: string | null; isDefault: boolean;
  photos: { __typename: 'Photo'; url: string; thumbnailUrl: string }[];
  skus: { __typename: 'Sku'; id: string; size: string; quantity: number }[];
}
interface ProductPageData { product: { __typename: 'Product'; id: string; name: string; version: string; styles: PageStyle[] } | null }
const PRODUCT_PAGE: TypedDocumentNode<ProductPageData, { id: string }> = gql`
  query ApolloProductPage($id: ID!) {
    product(id: $id) {
      id name version
      styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } }
    }
  }
`;

interface ListProduct { __typename: 'Product'; id: string; name: string; version: string; category: string; defaultPrice: string }
const LIST_PAGE: TypedDocumentNode<{ products: ListProduct[] }, { count: number }> = gql`
  query ApolloListPage($count: Int!) { products(count: $count) { id name version category defaultPrice } }
`;
/** A detail page asking only for fields the list page already has. */
const DETAIL_FROM_LIST: TypedDocumentNode<{ product: ListProduct | null }, { id: string }> = gql`
  query ApolloDetailFromList($id: ID!) { product(id: $id) { id name version category defaultPrice } }
`;
/** A detail page with a field the list page does not have. */
const DETAIL_PAGE: TypedDocumentNode<{ product: (ListProduct & { slogan: string }) | null }, { id: string }> = gql`
  query ApolloDetailPage($id: ID!) { product(id: $id) { id name version category defaultPrice slogan } }
`;

const RENAME: TypedDocumentNode<{ updateProduct: { __typename: 'Product'; id: string; name: string; version: string } }, { id: string; name: string }> = gql`
  mutation ApolloRename($id: ID!, $name: String!) { updateProduct(id: $id, input: { name: $name }) { id name version } }
`;

const NAME_FRAGMENT: TypedDocumentNode<{ __typename: 'Product'; id: string; name: string }> = gql`
  fragment ApolloProductName on Product { id name }
`;

/** Collects what an ObservableQuery emits. */
function collect<T>(observable: { subscribe(next: (value: T) => void): { unsubscribe(): void } }) {
  const values: T[] = [];
  const subscription = observable.subscribe((value) => { values.push(value); });
  return { values, last: () => values.at(-1), stop: () => subscription.unsubscribe() };
}

const WAIT = { timeout: 5_000, interval: 10 };
/** Long enough for a refetch Apollo might start after a write to have been sent. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
const suffix = () => crypto.randomBytes(3).toString('hex');

const catalogue = useTestCatalogue({ scale: 0.0001 });
const server = useTestClient(catalogue, { env: { CACHE: 'on' } });
let uri: string;
let apiKey: string;

beforeAll(async () => {
  uri = `${await server.app.listen({ port: 0, host: '127.0.0.1' })}/graphql`;
  apiKey = server.apiKey!;
});

function newClient(log: SentRequest[], options: { typePolicies?: ConstructorParameters<typeof InMemoryCache>[0] } = {}) {
  return new ApolloClient({
    cache: new InMemoryCache(options.typePolicies),
    link: new HttpLink({ uri, fetch: recordingFetch(log), headers: { authorization: `Bearer ${apiKey}` } }),
  });
}

async function dbName(id: string): Promise<string> {
  return (await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [Number(id)])).name;
}

describe('Apollo Client with InMemoryCache against the API', () => {
  it('a watched product page shows a mutation\'s new name and version without fetching the page again', async () => {
    const row = await catalogue.direct.one<{ id: number; name: string; styles: string }>(
      `SELECT p.id, p.name, (SELECT count(*) FROM styles s WHERE s.product_id = p.id) AS styles FROM products p
        WHERE (SELECT count(*) FROM styles s WHERE s.product_id = p.id) >= 2 ORDER BY p.id DESC LIMIT 1`);
    const id = String(row.id);
    const log: SentRequest[] = [];
    const client = newClient(log);
    const page = collect(client.watchQuery({ query: PRODUCT_PAGE, variables: { id } }));
    try {
      await vi.waitFor(() => expect(page.last()?.data?.product).toBeTruthy(), WAIT);
      const before = page.last()!.data!.product!;
      expect(before).toMatchObject({ __typename: 'Product', id, name: row.name });
      expect(before.styles).toHaveLength(Number(row.styles));
      expect(log.map((r) => [r.method, r.operationName])).toEqual([['POST', 'ApolloProductPage']]);
      expect(client.cache.identify(before)).toBe(`Product:${id}`);

      const newName = `${row.name} ${suffix()}`;
      const emitted = page.values.length;
      const result = await client.mutate({ mutation: RENAME, variables: { id, name: newName } });
      expect(result.data?.updateProduct).toMatchObject({ id, name: newName });
      expect(await dbName(id)).toBe(newName);

      await vi.waitFor(() => expect(page.last()?.data?.product?.name).toBe(newName), WAIT);
      await settle();
      const after = page.last()!.data!.product!;
      expect(page.values.length).toBeGreaterThan(emitted);
      expect(after.version).toBe(result.data?.updateProduct.version);
      expect(after.version).not.toBe(before.version);
      expect(after.styles).toEqual(before.styles); // merged into the entry, not replaced
      // The initial query, then the mutation and nothing else: no refetch of the page.
      expect(log.map((r) => [r.method, r.operationName])).toEqual([['POST', 'ApolloProductPage'], ['POST', 'ApolloRename']]);
    } finally {
      page.stop();
      client.stop();
    }
  });

  it('a list page and a detail page share normalised Product entries', async () => {
    const rows = await catalogue.direct.rows<{ id: number; name: string }>('SELECT id, name FROM products ORDER BY id LIMIT 5');
    expect(rows).toHaveLength(5);
    const ids = rows.map((r) => String(r.id));
    const log: SentRequest[] = [];
    // The usual cache redirect: product(id) reads the Product entry a list may already hold.
    const client = newClient(log, {
      typePolicies: {
        typePolicies: {
          Query: {
            fields: {
              product: {
                read(existing, { args, toReference }) {
                  return existing !== undefined ? existing : toReference({ __typename: 'Product', id: String(args?.id) });
                },
              },
            },
          },
        },
      },
    });
    const plain: SentRequest[] = [];
    const withoutRedirect = newClient(plain);
    try {
      const list = await client.query({ query: LIST_PAGE, variables: { count: 5 } });
      expect(list.data?.products.map((p) => [p.id, p.name])).toEqual(rows.map((r) => [String(r.id), r.name]));
      expect(log).toHaveLength(1);

      // One entry per product, keyed by __typename and the id (an ID, so a string); the list holds references to them.
      const cache = client.cache;
      const target = ids[2]!;
      const key = cache.identify({ __typename: 'Product', id: target });
      expect(key).toBe(`Product:${target}`);
      const snapshot = cache.extract() as Record<string, Record<string, unknown>>;
      expect(snapshot.ROOT_QUERY?.['products({"count":5})']).toEqual(ids.map((id) => ({ __ref: `Product:${id}` })));
      expect(cache.readFragment({ id: key, fragment: NAME_FRAGMENT })).toEqual({ __typename: 'Product', id: target, name: rows[2]!.name });

      // The detail page with fields the list had: answered from the cache, no request.
      const detail = await client.query({ query: DETAIL_FROM_LIST, variables: { id: target } });
      expect(detail.data?.product).toEqual(list.data?.products[2]);
      expect(log).toHaveLength(1);
      // Without the redirect, the same detail query goes to the server (the cache knows product(id) only by its arguments).
      await withoutRedirect.query({ query: LIST_PAGE, variables: { count: 5 } });
      await withoutRedirect.query({ query: DETAIL_FROM_LIST, variables: { id: target } });
      expect(plain.map((r) => r.operationName)).toEqual(['ApolloListPage', 'ApolloDetailFromList']);

      // A detail page with a field the list lacks needs the server once; then both pages show one entry.
      const listWatch = collect(client.watchQuery({ query: LIST_PAGE, variables: { count: 5 } }));
      const detailWatch = collect(client.watchQuery({ query: DETAIL_PAGE, variables: { id: target } }));
      try {
        await vi.waitFor(() => expect(detailWatch.last()?.data?.product?.slogan).toBeTypeOf('string'), WAIT);
        await vi.waitFor(() => expect(listWatch.last()?.data?.products).toHaveLength(5), WAIT);
        const slogan = (await catalogue.direct.one<{ slogan: string }>('SELECT slogan FROM products WHERE id = $1', [Number(target)])).slogan;
        expect(detailWatch.last()?.data?.product?.slogan).toBe(slogan);
        expect(log.map((r) => r.operationName)).toEqual(['ApolloListPage', 'ApolloDetailPage']);

        // One write, one request: both watched pages show it.
        const newName = `${rows[2]!.name} ${suffix()}`;
        const result = await client.mutate({ mutation: RENAME, variables: { id: target, name: newName } });
        expect(result.data?.updateProduct.name).toBe(newName);
        await vi.waitFor(() => {
          expect(detailWatch.last()?.data?.product?.name).toBe(newName);
          expect(listWatch.last()?.data?.products?.[2]?.name).toBe(newName);
        }, WAIT);
        await settle();
        expect(listWatch.last()?.data?.products?.[2]?.version).toBe(result.data?.updateProduct.version);
        expect(detailWatch.last()?.data?.product?.version).toBe(result.data?.updateProduct.version);
        expect(listWatch.last()?.data?.products?.filter((p) => p?.id !== target).map((p) => p?.name))
          .toEqual(rows.filter((r) => String(r.id) !== target).map((r) => r.name));
        expect(log.map((r) => r.operationName)).toEqual(['ApolloListPage', 'ApolloDetailPage', 'ApolloRename']);
        expect(await dbName(target)).toBe(newName);

        // Another client's list page, read from the server, shows the write too (the cached listing was dropped).
        const reread = await withoutRedirect.query({ query: LIST_PAGE, variables: { count: 5 }, fetchPolicy: 'network-only' });
        expect(reread.data?.products[2]?.name).toBe(newName);
        expect(plain.at(-1)?.headers?.get('x-cache')).toBe('miss');
      } finally {
        listWatch.stop();
        detailWatch.stop();
      }
    } finally {
      client.stop();
      withoutRedirect.stop();
    }
  });

  it('the persisted-queries link over GET misses once, registers the query with a POST, then a fresh client hits', async () => {
    // A product no other test here renames, so its cached response stays valid.
    const row = await catalogue.direct.one<{ id: number; name: string }>('SELECT id, name FROM products ORDER BY id OFFSET 10 LIMIT 1');
    const id = String(row.id);
    const apqClient = (log: SentRequest[]) => new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink({ sha256: (text) => crypto.createHash('sha256').update(text).digest('hex'), useGETForHashedQueries: true })
        .concat(new HttpLink({ uri, fetch: recordingFetch(log), headers: { authorization: `Bearer ${apiKey}` } })),
    });

    const first: SentRequest[] = [];
    const a = apqClient(first);
    const second: SentRequest[] = [];
    const b = apqClient(second);
    try {
      const missed = await a.query({ query: DETAIL_PAGE, variables: { id } });
      expect(missed.data?.product?.name).toBe(row.name);
      expect(first).toHaveLength(2);
      const [hashOnly, retry] = first as [SentRequest, SentRequest];
      // 1: GET with the hash and no query text; the server does not know the hash.
      expect(hashOnly.method).toBe('GET');
      expect(hashOnly.query).toBeUndefined();
      expect(hashOnly.variables).toEqual({ id });
      const hash = hashOnly.extensions?.persistedQuery?.sha256Hash as string;
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hashOnly.body?.errors?.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
      // 2: the link retries as a POST (Apollo Client 4 always does: the full text may be long) with the text and the hash.
      expect(retry.method).toBe('POST');
      expect(retry.query).toBeDefined();
      expect(retry.extensions?.persistedQuery?.sha256Hash).toBe(hash);
      // The hash is of the text as sent, __typename fields added by the cache included.
      expect(crypto.createHash('sha256').update(retry.query!).digest('hex')).toBe(hash);
      expect(retry.query).toContain('__typename');
      expect(retry.headers?.get('x-cache')).toBe('miss');
      expect(Number(retry.headers?.get('x-sql-statements'))).toBeGreaterThan(0);

      // A fresh client (own cache, own link) sends only the hash, over GET, once, and gets the data
      // from the response cache: no SQL.
      const hit = await b.query({ query: DETAIL_PAGE, variables: { id } });
      expect(hit.data?.product).toEqual(missed.data?.product);
      expect(second).toHaveLength(1);
      const [hashed] = second as [SentRequest];
      expect(hashed.method).toBe('GET');
      expect(hashed.query).toBeUndefined();
      expect(hashed.extensions?.persistedQuery?.sha256Hash).toBe(hash);
      // The early hit reads this client's spelling of `extensions` without parsing it (src/graphql/fast-path.ts).
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(sentByGet({ extensions: hashed.extensionsText })?.hash).toBe(hash);
        expect(parse).not.toHaveBeenCalled();
      } finally {
        parse.mockRestore();
      }
      expect(hashed.body?.errors).toBeUndefined();
      expect(hashed.headers?.get('x-cache')).toBe('hit');
      expect(hashed.headers?.get('x-sql-statements')).toBe('0');

      // After a write of that product the same hash-only GET is answered from Postgres again, with the new name.
      const newName = `${row.name} ${suffix()}`;
      await b.mutate({ mutation: RENAME, variables: { id, name: newName } });
      const mutationRequests = second.slice(1);
      const fresh: SentRequest[] = [];
      const c = apqClient(fresh);
      try {
        const again = await c.query({ query: DETAIL_PAGE, variables: { id } });
        expect(again.data?.product?.name).toBe(newName);
        expect(fresh.map((r) => [r.method, r.query === undefined, r.headers?.get('x-cache')])).toEqual([['GET', true, 'miss']]);
      } finally {
        c.stop();
      }
      // What the link did with the mutation: never GET; hash first, the text on a retry.
      expect(mutationRequests.every((r) => r.method === 'POST')).toBe(true);
      console.info('APQ mutation requests:', mutationRequests.map((r) => ({ method: r.method, withQuery: r.query !== undefined, status: r.status, errors: r.body?.errors?.map((e) => e.extensions?.code) })));
      // Recorded, not asserted (statuses and Cache-Control of GET /graphql are being reworked).
      const seen = (r: SentRequest) => ({ method: r.method, status: r.status, contentType: r.headers?.get('content-type'), cacheControl: r.headers?.get('cache-control'), xCache: r.headers?.get('x-cache') });
      console.info('APQ miss, retry, hit:', [hashOnly, retry, hashed].map(seen), 'extensions sent:', hashOnly.extensions);
    } finally {
      a.stop();
      b.stop();
    }
  });
});
