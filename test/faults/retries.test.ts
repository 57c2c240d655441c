// Write transactions against real conflicts. Two concurrent updates of one
// product that both replace its features: under SERIALIZABLE the second one
// to reach the rows fails with a serialization failure, is run again, and the
// product ends with one update's name and that same update's features (at
// READ COMMITTED it would end with both feature lists). A deadlock between an
// update and a transaction of the test: Postgres aborts the update, which is
// run again and succeeds once the test lets go. Neither client sees an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWriteConflict } from '../../src/db/transaction.ts';
import { createTestCatalogue, createTestClient, type TestCatalogue, type TestClient } from '../support/catalogue-app.ts';
import { HeldLocks, lockWaiters } from '../support/locks.ts';

let catalogue: TestCatalogue;
let client: TestClient;
beforeAll(async () => {
  catalogue = await createTestCatalogue();
  client = await createTestClient(catalogue.db.url, { nodeEnv: 'production' });
});
afterAll(async () => {
  await client?.close();
  await catalogue?.dispose();
});

async function state(id: number) {
  const { name } = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id]);
  const features = (await catalogue.direct.rows<{ feature: string }>('SELECT feature FROM features WHERE product_id = $1 ORDER BY id', [id])).map((r) => r.feature);
  return { name, features };
}

/** A product with at least one feature row (rows the test can lock). */
async function productWithFeatures(): Promise<number> {
  const { id } = await catalogue.direct.one<{ id: number }>('SELECT product_id AS id FROM features GROUP BY product_id ORDER BY product_id LIMIT 1 OFFSET 3');
  return id;
}

describe('write conflicts are retried', () => {
  it('two concurrent feature replacements: one is retried after a serialization failure, the result is one whole write', async () => {
    const service = client.server.service;
    const id = await productWithFeatures();
    const retriesBefore = service.transactionRetries;
    // Both updates read the product, then queue on the feature rows the test holds.
    const lock = await HeldLocks.take(catalogue.db.url, `SELECT id FROM features WHERE product_id = ${id} FOR UPDATE`);
    const a = service.updateProduct(id, { name: 'Write A', features: [{ feature: 'A1', value: null }, { feature: 'A2', value: 'x' }] });
    const b = service.updateProduct(id, { name: 'Write B', features: [{ feature: 'B1', value: null }] });
    try {
      await lockWaiters(catalogue.db.url, 2);
    } finally {
      await lock.release();
    }
    const results = await Promise.allSettled([a, b]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(service.transactionRetries).toBeGreaterThan(retriesBefore);
    expect([
      { name: 'Write A', features: ['A1', 'A2'] },
      { name: 'Write B', features: ['B1'] },
    ]).toContainEqual(await state(id));
  });

  it('a deadlock with another transaction: the update is aborted, run again, and succeeds', async () => {
    const service = client.server.service;
    const id = (await productWithFeatures()) + 1;
    await catalogue.direct.rows('INSERT INTO features (product_id, feature) VALUES ($1, $2)', [id, 'Original']);
    const deadlocksBefore = await deadlocks();
    const retriesBefore = service.transactionRetries;
    // The test's transaction waits longer than the server's before checking for
    // a deadlock, so Postgres picks the server's transaction as the victim.
    const lock = await HeldLocks.take(catalogue.db.url, "SET LOCAL deadlock_timeout = '20s'", `UPDATE products SET slogan = slogan WHERE id = ${id}`);
    try {
      // The update deletes the features (locking them), then waits for the product row.
      const update = service.updateProduct(id, { name: 'Survived a deadlock', features: [{ feature: 'New', value: 'v' }] });
      await lockWaiters(catalogue.db.url, 1);
      // Now the test waits for the features: a cycle, which Postgres breaks by aborting the update.
      await lock.query(`DELETE FROM features WHERE product_id = ${id}`);
      await lock.release();
      await update;
    } finally {
      await lock.release();
    }
    expect(service.transactionRetries).toBeGreaterThan(retriesBefore);
    expect(await state(id)).toEqual({ name: 'Survived a deadlock', features: ['New'] });
    // Postgres counted it: a real deadlock, not a timeout.
    for (let i = 0; i < 100 && (await deadlocks()) === deadlocksBefore; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await deadlocks()).toBeGreaterThan(deadlocksBefore);
  });

  it('recognises write conflicts in every wrapping, and nothing else', () => {
    expect(isWriteConflict({ code: '40001' })).toBe(true);
    expect(isWriteConflict({ code: 'P2034' })).toBe(true);
    expect(isWriteConflict({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '40P01' } } } })).toBe(true);
    expect(isWriteConflict({ code: '23505' })).toBe(false);
    expect(isWriteConflict(new Error('40001'))).toBe(false);
  });
});

async function deadlocks(): Promise<number> {
  const { n } = await catalogue.direct.one<{ n: number }>('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()');
  return n;
}
