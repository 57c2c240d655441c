// Keyed reads of concurrent requests share statements (src/db/reads/coalesced-reads.ts),
// and each request still gets exactly its rows and its statement count.
// Real Postgres, real pools; "requests" are statement-counting scopes, as the
// server makes them.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogQueries, type Feature } from '../../src/catalog/reads/queries.ts';
import { CoalescedReads, type KeyedStatement, MAX_COALESCED_KEYS } from '../../src/db/reads/coalesced-reads.ts';
import { connectDatabase, type Database } from '../../src/db/pool/pool.ts';
import { poolReads, type ReadRoute, type Reads } from '../../src/db/reads/read-routes.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue();
let database: Database;
let productIds: number[];
beforeAll(async () => {
  database = connectDatabase(catalogue.db.url, { poolSize: 4 });
  productIds = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id')).map((row) => row.id);
}, 120_000);
afterAll(async () => {
  await database?.close();
});

const FEATURES: KeyedStatement<Feature> = {
  text: 'SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1::int[]) ORDER BY id',
  keyOf: (row) => row.productId,
};

/** Runs each read in a request scope of its own, all started in the same tick; returns each one's result and statement count. */
async function concurrently<T>(reads: (() => Promise<T>)[]) {
  const scopes = reads.map((read) => database.statements.run(read));
  const results = await Promise.allSettled(scopes.map((scope) => scope.result));
  return results.map((result, i) => ({ result, statements: scopes[i]!.counter.count }));
}

async function featuresOf(ids: number[]): Promise<Feature[]> {
  return catalogue.direct.rows<Feature & Record<string, unknown>>('SELECT id, product_id AS "productId", feature, value FROM features WHERE product_id = ANY($1::int[]) ORDER BY id', [ids]);
}

/** Rows grouped by key in the order of `keys`, statement order within a key: what a shared statement gives each request. */
function inKeyOrder(rows: Feature[], keys: number[]): Feature[] {
  return keys.flatMap((key) => rows.filter((row) => row.productId === key));
}

describe('coalesced keyed reads', () => {
  it('answer concurrent requests from one statement, each with exactly its rows and a count of one', async () => {
    const coalesced = new CoalescedReads(poolReads(database.pool), database.statements);
    // Overlapping keys on purpose: the statement carries each once, both requests get them.
    const requests = [productIds.slice(0, 3), productIds.slice(2, 6), [productIds[40]!], [99_999_999]];
    const before = database.statements.total;
    const answers = await concurrently(requests.map((keys) => () => coalesced.read('test_features', FEATURES, keys)));
    expect(database.statements.total - before).toBe(1);
    for (const [i, keys] of requests.entries()) {
      const answer = answers[i]!;
      expect(answer.result.status).toBe('fulfilled');
      expect((answer.result as PromiseFulfilledResult<Feature[]>).value).toEqual(inKeyOrder(await featuresOf(keys), keys));
      expect(answer.statements).toBe(1);
    }
    expect((answers[3]!.result as PromiseFulfilledResult<Feature[]>).value).toEqual([]);
  });

  it('send a lone request\'s read at once, in statement order', async () => {
    const coalesced = new CoalescedReads(poolReads(database.pool), database.statements);
    const keys = productIds.slice(10, 20).reverse();
    expect(await coalesced.read('test_features', FEATURES, keys)).toEqual(await featuresOf(keys));
  });

  it(`start another statement when the keys would pass ${MAX_COALESCED_KEYS}`, async () => {
    const observed: number[] = [];
    const coalesced = new CoalescedReads(poolReads(database.pool), database.statements, (_name, requests) => observed.push(requests));
    const keys = Array.from({ length: 400 }, (_, i) => i + 1);
    const before = database.statements.total;
    // 400 + 400 fit in one statement; the third 400 would make 1,200.
    const answers = await concurrently([0, 1, 2].map((n) => () => coalesced.read('test_features', FEATURES, keys.map((k) => k + n * 400))));
    expect(database.statements.total - before).toBe(2);
    expect(observed).toEqual([2, 1]);
    for (const answer of answers) expect(answer.statements).toBe(1);
  });

  it('share a statement only between requests whose reads go to the same server', async () => {
    // Two routes (as the read router gives a replica to one request and the primary to another).
    const other = connectDatabase(catalogue.db.url, { poolSize: 1 });
    try {
      const routes: ReadRoute[] = [poolReads(database.pool).route() as ReadRoute, poolReads(other.pool).route() as ReadRoute];
      let next = 0;
      const alternating: Reads = { route: () => routes[next++ % 2]! };
      const coalesced = new CoalescedReads(alternating, database.statements);
      const before = { first: database.statements.total, second: other.statements.total };
      const requests = [0, 1, 2, 3].map((i) => [productIds[i]!]);
      const answers = await concurrently(requests.map((keys) => () => coalesced.read('test_features', FEATURES, keys)));
      // Each pool counts the statements it ran: one each.
      expect([database.statements.total - before.first, other.statements.total - before.second]).toEqual([1, 1]);
      for (const [i, keys] of requests.entries()) {
        expect((answers[i]!.result as PromiseFulfilledResult<Feature[]>).value).toEqual(await featuresOf(keys));
      }
    } finally {
      await other.close();
    }
  });

  it('fail every request of a failing statement, and serve the next ones', async () => {
    const coalesced = new CoalescedReads(poolReads(database.pool), database.statements);
    const failing: KeyedStatement<Feature> = { ...FEATURES, text: `${FEATURES.text.replace(' ORDER BY id', '')} AND 1 / (product_id - product_id) = 1` };
    const answers = await concurrently([[productIds[0]!], [productIds[1]!]].map((keys) => () => coalesced.read('test_failing', failing, keys)));
    for (const answer of answers) {
      expect(answer.result.status).toBe('rejected');
      expect(((answer.result as PromiseRejectedResult).reason as pg.DatabaseError).code).toBe('22012'); // division_by_zero
    }
    const keys = [productIds[0]!];
    expect(await coalesced.read('test_features', FEATURES, keys)).toEqual(await featuresOf(keys));
  });

  it('keep the catalogue queries\' answers what they were: loaders of concurrent requests get their own products', async () => {
    const queries = new CatalogQueries(poolReads(database.pool), database.statements);
    const ids = productIds.slice(0, 30);
    const answers = await concurrently(ids.map((id) => () => queries.productsWithStylesByIds([id])));
    for (const [i, id] of ids.entries()) {
      const rows = (answers[i]!.result as PromiseFulfilledResult<{ id: number; styles: unknown[] }[]>).value;
      expect(rows.map((row) => row.id)).toEqual([id]);
      const [document] = await catalogue.direct.rows<{ styles: unknown[] }>('SELECT styles FROM product_style_documents WHERE product_id = $1', [id]);
      expect(rows[0]!.styles).toEqual(document?.styles ?? []);
    }
  });
});
