// THE query-count contract: a GraphQL request costs one SQL statement per
// relation level it reads, however many products it returns. The
// x-sql-statements header (statements counted at the pg driver) must be the
// same for 1, 10 and 50 products, and it must agree with what Postgres itself
// saw (pg_stat_database.xact_commit).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BrowsePageWithFacetsDocument, CategoryPageDocument, DeepRelatedDocument, NestedProductsByIdsDocument, NestedProductsDocument, PagedNestedProductsDocument,
  SearchPageDocument, SearchProductsDocument, SearchWithFacetsDocument, ShopFacetsDocument,
} from '../../src/generated/graphql/operations/graphql.ts';
import { createTestClient, EXECUTORS, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import {
  chooseIds, CONTRACT_LIMITS, type ContractIds, contractCases, DEEP_STATEMENTS, deepHasWorkAtEveryLevel, type Graph, NESTED_STATEMENTS,
  nestedHasWorkAtEveryLevel, PAGED_STATEMENTS, PAGED_VARIABLES, pagedHasWorkAtEveryLevel, readGraph, SIZES,
} from './query-count-contract.ts';

const catalogue = useTestCatalogue();
let graph: Graph;
let ids: ContractIds;
/** Ids for NestedProductsByIds / DeepRelated, per size. */
let nestedIds: Map<number, string[]>;
let deepIds: Map<number, string[]>;

beforeAll(async () => {
  graph = await readGraph(catalogue);
  ids = chooseIds(graph);
  ({ nested: nestedIds, deep: deepIds } = ids);
  // Nothing else must touch this database while Postgres's own counters are
  // compared with the header: vacuum and analyse now so that autovacuum has no
  // reason to come, and close the direct connections.
  await catalogue.direct.rows('VACUUM ANALYZE');
  await catalogue.direct.close();
});

describe('test data preconditions', () => {
  it('every size has ids for which each relation level has work to do', () => {
    expect(graph.productIds.length).toBeGreaterThanOrEqual(500);
    for (const size of SIZES) {
      const page = graph.productIds.slice(0, size);
      expect(nestedHasWorkAtEveryLevel(graph, page), `products(count: ${size})`).toBe(true);
      const nested = (nestedIds.get(size) ?? []).map(Number);
      expect(new Set(nested).size).toBe(size);
      expect(nestedHasWorkAtEveryLevel(graph, nested), `productsByIds nested, ${size} ids`).toBe(true);
      expect(pagedHasWorkAtEveryLevel(graph, page), `paged products(count: ${size})`).toBe(true);
      const deep = (deepIds.get(size) ?? []).map(Number);
      expect(deep).toHaveLength(size);
      expect(deepHasWorkAtEveryLevel(graph, deep), `deep related, ${size} ids`).toBe(true);
    }
  });
});

describe.each(EXECUTORS)('x-sql-statements with $engine', ({ env }) => {
  const client = useTestClient(catalogue, { env: { ...env, ...CONTRACT_LIMITS } });

  it(`products(count: N) with nested relations costs ${NESTED_STATEMENTS} statements for N = 1, 10 and 50`, async () => {
    const counts: Record<number, number> = {};
    for (const count of SIZES) {
      const response = await client.post(NestedProductsDocument, { count });
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data?.products).toHaveLength(count);
      // The data really was fetched at every level.
      const products = response.body.data?.products ?? [];
      expect(products.some((p) => p.styles.some((s) => s.photos.length > 0 && s.skus.length > 0))).toBe(true);
      expect(products.some((p) => p.related.some((r) => r.styles.length > 0))).toBe(true);
      counts[count] = response.statements;
    }
    expect(counts).toEqual({ 1: NESTED_STATEMENTS, 10: NESTED_STATEMENTS, 50: NESTED_STATEMENTS });
  });

  it(`productsByIds with nested relations costs ${NESTED_STATEMENTS} statements for 1, 10 and 50 ids`, async () => {
    const counts: Record<number, number> = {};
    for (const size of SIZES) {
      const ids = nestedIds.get(size) ?? [];
      const response = await client.post(NestedProductsByIdsDocument, { ids });
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data?.productsByIds.map((p) => p?.id)).toEqual(ids);
      counts[size] = response.statements;
    }
    expect(counts).toEqual({ 1: NESTED_STATEMENTS, 10: NESTED_STATEMENTS, 50: NESTED_STATEMENTS });
  });

  it(`three levels of related costs ${DEEP_STATEMENTS} statements for 1, 10 and 50 ids`, async () => {
    const counts: Record<number, number> = {};
    for (const size of SIZES) {
      const ids = deepIds.get(size) ?? [];
      const response = await client.post(DeepRelatedDocument, { ids });
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      const roots = response.body.data?.productsByIds ?? [];
      expect(roots.map((p) => p?.id)).toEqual(ids);
      const level3 = roots.flatMap((p) => p?.related ?? []).flatMap((p) => p.related).flatMap((p) => p.related);
      expect(level3.length).toBeGreaterThan(0);
      counts[size] = response.statements;
    }
    expect(counts).toEqual({ 1: DEEP_STATEMENTS, 10: DEEP_STATEMENTS, 50: DEEP_STATEMENTS });
  });

  it('never costs more than one statement per level, whatever the ids (up to the 100-id limit)', async () => {
    for (const size of [2, 25, 100]) {
      const ids = graph.productIds.slice(-size).map(String);
      const nested = await client.post(NestedProductsByIdsDocument, { ids });
      expect(nested.status).toBe(200);
      expect(nested.statements).toBeGreaterThan(0);
      expect(nested.statements).toBeLessThanOrEqual(NESTED_STATEMENTS);
      const deep = await client.post(DeepRelatedDocument, { ids });
      expect(deep.status).toBe(200);
      expect(deep.statements).toBeGreaterThan(0);
      expect(deep.statements).toBeLessThanOrEqual(DEEP_STATEMENTS);
    }
    const page = await client.post(NestedProductsDocument, { count: 100 });
    expect(page.statements).toBe(NESTED_STATEMENTS);
  });

  it(`a page of N products with a page of styles (with photos) and of related products each costs ${PAGED_STATEMENTS} statements for N = 1, 10, 20 and 50`, async () => {
    const counts: Record<number, number> = {};
    for (const count of [...SIZES, 20]) {
      const response = await client.post(PagedNestedProductsDocument, { count, ...PAGED_VARIABLES });
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      const products = response.body.data?.products ?? [];
      expect(products).toHaveLength(count);
      // The pages really were read, and are pages.
      expect(products.some((p) => p.styles.some((s) => s.photos.length > 0))).toBe(true);
      expect(products.some((p) => p.related.some((r) => r.styles.length === 1))).toBe(true);
      expect(Math.max(...products.map((p) => p.styles.length))).toBeLessThanOrEqual(PAGED_VARIABLES.styles);
      expect(Math.max(...products.map((p) => p.related.length))).toBeLessThanOrEqual(PAGED_VARIABLES.related);
      counts[count] = response.statements;
    }
    expect(counts).toEqual({ 1: PAGED_STATEMENTS, 10: PAGED_STATEMENTS, 20: PAGED_STATEMENTS, 50: PAGED_STATEMENTS });
  });

  // Browse and search (docs/browse.md): the page is one statement, its
  // totalCount and facets one more; a search resolves its words first.
  const PAGE_SIZES = [1, 10, 50] as const;
  it('a filtered, reordered page with totalCount and facets costs 2 statements for first = 1, 10 and 50', async () => {
    const counts: Record<number, number> = {};
    for (const first of PAGE_SIZES) {
      const response = await client.post(BrowsePageWithFacetsDocument, { first, filter: { inStock: true, priceMin: '10.00' }, orderBy: { field: 'PRICE', direction: 'DESC' } });
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data?.productConnection.edges).toHaveLength(first);
      expect(response.body.data?.productConnection.facets.categories.length).toBeGreaterThan(0);
      counts[first] = response.statements;
    }
    expect(counts).toEqual({ 1: 2, 10: 2, 50: 2 });
  });

  // A search's words resolved lately are remembered (src/search/dictionary/resolution-memo.ts):
  // its page is then its only statement. Each size is asked with the memo empty, then again.
  it('a search costs 2 statements (words, page), 1 with its words remembered, and 1 more with its facets, for first = 1, 10 and 50; facets alone 1, of a search 2 (1 remembered)', async () => {
    const memo = client.server.memo!;
    expect(memo).toBeDefined();
    const page: Record<number, [number, number]> = {};
    const withFacets: Record<number, [number, number]> = {};
    for (const first of PAGE_SIZES) {
      memo.clear();
      const response = await client.post(SearchProductsDocument, { query: 'the e', first });
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data?.search.edges).toHaveLength(first);
      const again = await client.post(SearchProductsDocument, { query: 'the e', first });
      expect(again.body).toEqual(response.body);
      page[first] = [response.statements, again.statements];
      memo.clear();
      const faceted = await client.post(SearchWithFacetsDocument, { query: 'e', first });
      expect(faceted.body.data?.search.edges).toHaveLength(first);
      const fasceted = await client.post(SearchWithFacetsDocument, { query: 'e', first });
      expect(fasceted.body).toEqual(faceted.body);
      withFacets[first] = [faceted.statements, fasceted.statements];
    }
    expect(page).toEqual({ 1: [2, 1], 10: [2, 1], 50: [2, 1] });
    expect(withFacets).toEqual({ 1: [3, 2], 10: [3, 2], 50: [3, 2] });
    expect((await client.post(ShopFacetsDocument, { filter: { onSale: true } })).statements).toBe(1);
    memo.clear();
    expect((await client.post(ShopFacetsDocument, { query: 'e' })).statements).toBe(2);
    expect((await client.post(ShopFacetsDocument, { query: 'e' })).statements).toBe(1);
  });

  it('a write empties the memo: the next search resolves its words again', async () => {
    const memo = client.server.memo!;
    await client.post(SearchProductsDocument, { query: 'e', first: 1 });
    expect((await client.post(SearchProductsDocument, { query: 'e', first: 1 })).statements).toBe(1);
    const created = await client.post<{ createProduct: { id: string } }>(
      'mutation { createProduct(input: { name: "Memo Probe", slogan: "s", description: "d", category: "Probes", defaultPrice: "1.00" }) { id } }');
    expect(created.body.errors).toBeUndefined();
    try {
      expect(memo.snapshot().entries).toBe(0);
      expect((await client.post(SearchProductsDocument, { query: 'e', first: 1 })).statements).toBe(2);
    } finally {
      await client.post('mutation($id: ID!) { deleteProduct(id: $id) }', { id: created.body.data!.createProduct.id });
    }
  });

  it('product cards with their default style: a category page costs 1 statement, a search page 2 (1 with its words remembered), for first = 1, 10 and 50', async () => {
    const memo = client.server.memo!;
    const pages: Record<number, number> = {};
    const searches: Record<number, [number, number]> = {};
    for (const first of PAGE_SIZES) {
      const page = await client.post(CategoryPageDocument, { first, filter: { inStock: true }, orderBy: { field: 'NAME', direction: 'ASC' } });
      expect(page.body.errors).toBeUndefined();
      expect(page.body.data?.productConnection.edges).toHaveLength(first);
      expect(page.body.data?.productConnection.edges.every((edge) => edge.node.defaultStyle !== null)).toBe(true);
      pages[first] = page.statements;
      memo.clear();
      const search = await client.post(SearchPageDocument, { query: 'e', first });
      expect(search.body.errors).toBeUndefined();
      expect(search.body.data?.search.edges).toHaveLength(first);
      const again = await client.post(SearchPageDocument, { query: 'e', first });
      expect(again.body).toEqual(search.body);
      searches[first] = [search.statements, again.statements];
    }
    expect(pages).toEqual({ 1: 1, 10: 1, 50: 1 });
    expect(searches).toEqual({ 1: [2, 1], 10: [2, 1], 50: [2, 1] });
  });

  it('the same product requested twice in one request is fetched once', async () => {
    const id = String(graph.productIds[0]);
    const once = await client.post(NestedProductsByIdsDocument, { ids: [id] });
    const repeated = await client.post(NestedProductsByIdsDocument, { ids: [id, id, id] });
    expect(repeated.body.data?.productsByIds).toEqual([once.body.data?.productsByIds[0], once.body.data?.productsByIds[0], once.body.data?.productsByIds[0]]);
    expect(repeated.statements).toBe(once.statements);
  });

  it('counts are per request: each request starts from zero, even when requests overlap', async () => {
    const first = await client.post(NestedProductsDocument, { count: 10 });
    const responses = await Promise.all(SIZES.map((count) => client.post(NestedProductsDocument, { count })));
    expect(first.statements).toBe(NESTED_STATEMENTS);
    expect(responses.map((r) => r.statements)).toEqual(SIZES.map(() => NESTED_STATEMENTS));
  });
});

/**
 * Reads pg_stat_database.xact_commit of the catalogue database from a
 * connection to another database (so the reads are not counted themselves).
 * Every statement the app sends outside a transaction is one committed
 * transaction; opening a connection commits one more (backend start-up), which
 * the test measures rather than assumes. Backends publish their counters when
 * they exit, so the app is closed before the final read.
 */
class CommitCounter {
  private readonly client: pg.Client;
  private readonly database: string;
  constructor(databaseUrl: string) {
    const url = new URL(databaseUrl);
    this.database = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    this.client = new pg.Client({ connectionString: url.toString() });
  }
  async open(): Promise<void> {
    await this.client.connect();
  }
  close(): Promise<void> {
    return this.client.end();
  }
  async setting(name: string): Promise<string | undefined> {
    const { rows } = await this.client.query<{ value: string }>('SELECT current_setting($1) AS value', [name]);
    return rows[0]?.value;
  }
  async read(): Promise<number> {
    const { rows } = await this.client.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1', [this.database]);
    return Number(rows[0]?.commits ?? Number.NaN);
  }
  /** Waits until the counter stops moving (pending counters of exited backends are in). */
  async settle(): Promise<number> {
    let last = await this.read();
    for (let i = 0; i < 50; i++) {
      await sleep(200);
      const now = await this.read();
      if (now === last) return now;
      last = now;
    }
    return last;
  }
  /** Waits until at least `expected` commits over `baseline` are visible, then a little longer for stragglers. */
  async delta(baseline: number, expected: number): Promise<number> {
    for (let waited = 0; waited < 15_000 && (await this.read()) - baseline < expected; waited += 100) await sleep(100);
    await sleep(300);
    return (await this.read()) - baseline;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.each(EXECUTORS)('x-sql-statements agrees with Postgres (pg_stat_database.xact_commit) with $engine', ({ env }) => {
  // pg_stat_statements would count statements directly, but it only works when
  // preloaded (shared_preload_libraries), which the embedded test server is not
  // started with; xact_commit is always there and is exact for autocommit reads.
  let commits: CommitCounter;
  let trackCounts = true;
  let connectionCost = 1;

  beforeAll(async () => {
    commits = new CommitCounter(catalogue.db.url);
    await commits.open();
    trackCounts = (await commits.setting('track_counts')) === 'on';
    if (!trackCounts) return;
    // The catalogue was just loaded: autovacuum would vacuum and analyze its
    // tables (one transaction each, in this database) at a moment of its
    // choosing, perhaps across every attempt of a case (a CI run once saw each
    // of three attempts counted one or two too many). Done now, it has nothing left.
    // (On a connection of its own, ended at once: an exiting backend reports
    // its commits at once, an idle one up to 10 s later, into a measurement.)
    const vacuum = new pg.Client({ connectionString: catalogue.db.url });
    await vacuum.connect();
    try {
      await vacuum.query('VACUUM (ANALYZE)');
    } finally {
      await vacuum.end();
    }
    // What merely opening and closing one connection commits (backend start-up).
    // Autovacuum visiting the database can add commits to a measurement, never
    // remove any (a fresh-clone CI run once counted 5): the least of three.
    connectionCost = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3 && connectionCost > 1; attempt++) {
      const baseline = await commits.settle();
      const bare = new pg.Client({ connectionString: catalogue.db.url });
      await bare.connect();
      await bare.end();
      connectionCost = Math.min(connectionCost, await commits.delta(baseline, 1));
    }
  });
  afterAll(async () => {
    await commits?.close();
  });

  const cases = contractCases(() => ids);

  it.each(cases)('$name: Postgres committed exactly the $statements statements the header reports', async ({ send, statements }) => {
    if (!trackCounts) {
      // Statistics collection is off on this server (track_counts = off): Postgres
      // has no counter to compare with. The header tests above still run.
      console.warn('track_counts is off: skipping the pg_stat_database cross-check');
      return;
    }
    expect(connectionCost).toBe(1);
    // Autovacuum visiting the database could add commits (never remove them), so
    // a mismatch is retried; a header that is wrong is wrong on every attempt.
    const attempts: { header: number; connections: number; committed: number }[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const baseline = await commits.settle();
      // Anonymous: creating a key and looking it up would be statements of their own.
      // The change feed's LISTEN connection (opened at start-up for live
      // subscriptions, LIVE_SUBSCRIPTIONS=on by default) is the process's, not a
      // request's: off here, so that Postgres's counter holds only the request's.
      const client = await createTestClient(catalogue.db.url, {
        env: { ...env, ...CONTRACT_LIMITS, LIVE_SUBSCRIPTIONS: 'off' }, apiKey: false,
      });
      // The server issues exactly one statement of its own, at start-up: the
      // listing page anchors (src/catalog/reads/listing-anchors.ts).
      const startup = client.server.database.statements.total;
      expect(startup).toBe(1);
      let connections = 1; // the one the start-up statement opened
      client.server.database.pool.on('connect', () => { connections++; });
      const response = await send(client);
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      expect(response.statements).toBe(statements);
      // Nothing ran outside the request's scope either.
      expect(client.server.database.statements.total - startup).toBe(response.statements);
      await client.close();
      const expected = startup + response.statements + connections * connectionCost;
      const committed = await commits.delta(baseline, expected);
      attempts.push({ header: response.statements, connections, committed });
      if (committed === expected) break;
    }
    const last = attempts.at(-1);
    expect(last?.committed, JSON.stringify(attempts)).toBe(1 + (last?.header ?? Number.NaN) + (last?.connections ?? 0) * connectionCost);
  });
});
