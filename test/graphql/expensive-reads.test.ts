// Expensive reads are isolated (issue 45: unique searches and facets from 10
// clients took a product page's p99 from 3.8-12.9 ms to 141-225 ms, and none
// was ever refused). Searches, facet counts and browse pages run within one
// limit per process (src/catalog/browse/expensive-reads.ts): here one at a time and
// one more waiting. A search is held inside Postgres (its table locked by
// the test), so the limit is full for as long as the test says: the storm
// behind it waits (bounded) or, past the line, is refused once its wait runs
// out with 429, Retry-After and a message naming the limit, while a product page and a REST route are
// answered meanwhile.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphQLResponse, TestClient } from '../support/catalogue-app.ts';
import { useTestCatalogue, withTestClient } from '../support/catalogue-app.ts';
import { Scrape } from '../support/prometheus.ts';

const catalogue = useTestCatalogue();

const SEARCH = 'query Search($q: String!) { search(query: $q, first: 5) { searched edges { node { id name } } } }';
const FACETS = 'query Facets($q: String) { productFacets(query: $q) { total categories { value count } } }';
const PAGE = 'query Page($id: ID!) { product(id: $id) { id name styles { name skus { size quantity } } } }';

/** Holds product_browse (which every search page reads) locked until released: the search in the limit's slot waits inside Postgres. */
class HeldSearchTable {
  private readonly client: pg.Client;
  private constructor(client: pg.Client) {
    this.client = client;
  }
  static async lock(url: string): Promise<HeldSearchTable> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE product_browse IN ACCESS EXCLUSIVE MODE');
    return new HeldSearchTable(client);
  }
  /** Statements of the API waiting for the lock. */
  async waiting(): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
    return rows[0]!.n;
  }
  async release(): Promise<void> {
    await this.client.query('ROLLBACK').catch(() => {});
    await this.client.end().catch(() => {});
  }
}

/** Requests sent at once, how many have been answered so far, and how long each took. */
class Sent {
  readonly all: Promise<GraphQLResponse>[] = [];
  readonly answered: { response: GraphQLResponse; ms: number }[] = [];
  send(request: Promise<GraphQLResponse>): void {
    const started = performance.now();
    this.all.push(request.then((response) => {
      this.answered.push({ response, ms: performance.now() - started });
      return response;
    }));
  }
}

// The held search must outlast the test, not the statement timeout (a 503 after 5 s by default).
const env = (maxWaitMs: number) => ({
  EXPENSIVE_READS_CONCURRENCY: '1', EXPENSIVE_READS_QUEUE: '1', EXPENSIVE_READS_MAX_WAIT_MS: String(maxWaitMs), DATABASE_STATEMENT_TIMEOUT_MS: '120000',
});

function expectRefused(response: GraphQLResponse, maxWaitMs: number, reason: RegExp): void {
  expect(response.status, response.raw).toBe(429);
  expect(response.headers['retry-after']).toBe(String(Math.ceil(maxWaitMs / 1000)));
  expect(response.body.data).toBeUndefined();
  const [error] = response.body.errors ?? [];
  expect(error?.extensions).toMatchObject({ code: 'EXPENSIVE_READS_LIMITED', concurrency: 1, queue: 1, maxWaitMs });
  expect(error?.message).toMatch(/at most 1 at a time \(EXPENSIVE_READS_CONCURRENCY\)/);
  expect(error?.message).toMatch(reason);
}

describe('searches and facets past the limit on expensive reads', () => {
  let held: HeldSearchTable | undefined;
  let sent: Sent;
  beforeEach(() => {
    sent = new Sent();
  });
  afterEach(async () => {
    await held?.release();
    held = undefined;
    // Whatever the test's outcome, nothing it sent is left running.
    await Promise.allSettled(sent.all);
  });

  /** Locks the search table, sends one search and waits until it is held in Postgres (in the limit's one slot). */
  async function holdOneSearch(client: TestClient): Promise<void> {
    // Run once first: the fast path answers the document from then on (a refusal there is handed over to Apollo).
    for (const [query, q] of [[SEARCH, 'jacket'], [FACETS, 'coat']] as const) expect((await client.post(query, { q })).status).toBe(200);
    held = await HeldSearchTable.lock(catalogue.db.url);
    sent.send(client.post(SEARCH, { q: 'first held' }));
    await expect.poll(() => held!.waiting(), { timeout: 10_000 }).toBe(1);
  }

  it('past the line are refused once their wait runs out (429, Retry-After, naming the limit), or wait their turn; a product page and REST are served meanwhile', async () => {
    const maxWaitMs = 5_000;
    await withTestClient(catalogue.db.url, { apiKey: false, env: env(maxWaitMs) }, async (client) => {
      await holdOneSearch(client);
      for (let i = 0; i < 6; i++) sent.send(i % 2 === 0 ? client.post(SEARCH, { q: `storm ${i}` }) : client.post(FACETS, { q: `storm ${i}` }));
      // One of the six takes the waiting place; the other five are refused (counted at once, answered later).
      const scrape = async () => new Scrape((await client.app.inject({ method: 'GET', url: '/metrics' })).body);
      await expect.poll(async () => (await scrape()).sum('expensive_reads_refused_total', { reason: 'queue full' }), { timeout: 10_000 }).toBe(5);
      const metrics = await scrape();
      expect([metrics.sum('expensive_reads_running'), metrics.sum('expensive_reads_waiting')]).toEqual([1, 1]);

      const page = await client.post(PAGE, { id: '1' });
      expect(page.status, page.raw).toBe(200);
      expect(page.body.data?.product).toMatchObject({ id: '1' });
      expect((await client.app.inject({ method: 'GET', url: '/products/1/styles' })).statusCode).toBe(200);

      await held!.release();
      const answers = await Promise.all(sent.all);
      // The held search and the one that waited, each with its answer.
      const served = answers.filter((response) => response.status === 200);
      expect(served).toHaveLength(2);
      for (const response of served) expect(response.body.errors).toBeUndefined();
      // The five past the line: refused, none before their wait ran out (a
      // client ignoring Retry-After gets one refusal per wait, not thousands).
      const refused = sent.answered.filter(({ response }) => response.status !== 200);
      expect(refused).toHaveLength(5);
      for (const { response, ms } of refused) {
        expectRefused(response, maxWaitMs, /and 1 more already wait \(EXPENSIVE_READS_QUEUE\)/);
        expect(ms).toBeGreaterThanOrEqual(maxWaitMs - 50);
      }
      expect((await scrape()).sum('expensive_reads_refused_total', { reason: 'queue full' })).toBe(5);
    });
  });

  it('wait at most EXPENSIVE_READS_MAX_WAIT_MS for their turn', async () => {
    const maxWaitMs = 300;
    await withTestClient(catalogue.db.url, { apiKey: false, env: env(maxWaitMs) }, async (client) => {
      await holdOneSearch(client);
      sent.send(client.post(FACETS, { q: 'waits' }));
      await expect.poll(() => sent.answered.length, { timeout: 10_000 }).toBe(1);
      expectRefused(sent.answered[0]!.response, maxWaitMs, /this one waited 300 ms for its turn \(EXPENSIVE_READS_MAX_WAIT_MS\)/);
      const metrics = new Scrape((await client.app.inject({ method: 'GET', url: '/metrics' })).body);
      expect(metrics.sum('expensive_reads_refused_total', { reason: 'waited too long' })).toBe(1);
    });
  });
});
