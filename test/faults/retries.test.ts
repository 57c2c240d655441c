// Write transactions against real conflicts. Writes lock the product row
// first (READ COMMITTED), so two concurrent feature replacements of one
// product queue on that lock: neither fails, neither is retried, and the
// product ends with one update's name and that same update's features (never
// the union). A deadlock forced by another session's lock order: Postgres
// aborts the update, which is run again and succeeds. A lock held past
// DATABASE_LOCK_TIMEOUT_MS: the write is given up with a 503 and Retry-After
// (REST and GraphQL), and nothing is written.
import { describe, expect, it, onTestFinished } from 'vitest';
import { isLockTimeout, isWriteConflict } from '../../src/db/writes/transaction.ts';
import { createTestClient, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { HeldLocks, lockWaiters } from '../support/locks.ts';

const LOCK_TIMEOUT_MS = 300;

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue, { nodeEnv: 'production', env: { DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) } });

async function state(id: number) {
  const { name } = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = $1', [id]);
  const features = (await catalogue.direct.rows<{ feature: string }>('SELECT feature FROM features WHERE product_id = $1 ORDER BY id', [id])).map((r) => r.feature);
  return { name, features };
}

/** A product with at least one feature row (rows the test can lock). */
async function productWithFeatures(offset: number): Promise<number> {
  const { id } = await catalogue.direct.one<{ id: number }>('SELECT product_id AS id FROM features GROUP BY product_id ORDER BY product_id LIMIT 1 OFFSET $1', [offset]);
  return id;
}

describe('concurrent writes of one product', () => {
  it('two concurrent feature replacements queue on the product row: both succeed, no retry, the result is one whole write', async () => {
    const service = client.server.service;
    const id = await productWithFeatures(3);
    const retriesBefore = service.transactionRetries;
    // The first update to lock the product waits on the feature rows the test
    // holds; the second waits for the product row.
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
    expect(service.transactionRetries).toBe(retriesBefore);
    const final = await state(id);
    expect([
      { name: 'Write A', features: ['A1', 'A2'] },
      { name: 'Write B', features: ['B1'] },
    ]).toContainEqual(final);
    // Each answered with what it wrote, and the versions tell their order: the later one is what stayed.
    const [first, second] = results.map((r) => (r as PromiseFulfilledResult<Awaited<typeof a>>).value);
    const later = BigInt(first!.product.version) > BigInt(second!.product.version) ? first! : second!;
    expect({ name: later.product.name, features: later.features.map((f) => f.feature) }).toEqual(final);
  });

  it('a deadlock with a session that locks in the other order: the update is aborted, run again, and succeeds', async () => {
    // Postgres looks for deadlocks after deadlock_timeout (1 s): this server waits for locks longer than that.
    const patient = await createTestClient(catalogue.db.url, { nodeEnv: 'production', env: { DATABASE_LOCK_TIMEOUT_MS: '10000' } });
    onTestFinished(() => patient.close());
    const service = patient.server.service;
    const id = await productWithFeatures(5);
    const deadlocksBefore = await deadlocks();
    const retriesBefore = service.transactionRetries;
    // The test's transaction waits longer than the server's before checking for
    // a deadlock, so Postgres picks the server's transaction as the victim.
    const lock = await HeldLocks.take(catalogue.db.url, "SET LOCAL deadlock_timeout = '20s'", "SET LOCAL lock_timeout = '30s'", `SELECT id FROM features WHERE product_id = ${id} FOR UPDATE`);
    try {
      // The update locks the product row, then waits for the features the test holds.
      const update = service.updateProduct(id, { name: 'Survived a deadlock', features: [{ feature: 'New', value: 'v' }] });
      await lockWaiters(catalogue.db.url, 1);
      // Now the test waits for the product row: a cycle, which Postgres breaks by aborting the update.
      await lock.query(`UPDATE products SET slogan = slogan WHERE id = ${id}`);
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

  it('a row held past DATABASE_LOCK_TIMEOUT_MS: 503 with Retry-After through REST and GraphQL, within the bound, and nothing written', async () => {
    const id = await productWithFeatures(7);
    const before = await state(id);
    const lock = await HeldLocks.take(catalogue.db.url, `SELECT id FROM products WHERE id = ${id} FOR UPDATE`);
    try {
      const started = performance.now();
      const rest = await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name: 'Never written', features: [] } });
      const restMs = performance.now() - started;
      expect(rest.statusCode).toBe(503);
      expect(rest.headers['retry-after']).toBe('1');
      expect(JSON.parse(rest.body)).toEqual({ error: `product ${id} is being changed by other requests right now; nothing was written, try again shortly` });
      expect(restMs).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 20);
      expect(restMs).toBeLessThan(LOCK_TIMEOUT_MS + 2_000);

      const graphql = await client.post(`mutation { updateProduct(id: "${id}", input: { name: "Never written either" }) { id } }`);
      expect(graphql.status).toBe(503);
      expect(graphql.headers['retry-after']).toBe('1');
      expect(graphql.body.errors?.[0]?.extensions).toEqual({ code: 'WRITE_CONTENTION' });
      expect(graphql.body.errors?.[0]?.message).toBe(`product ${id} is being changed by other requests right now; nothing was written, try again shortly`);

      const remove = await client.app.inject({ method: 'DELETE', url: `/products/${id}` });
      expect(remove.statusCode).toBe(503);
    } finally {
      await lock.release();
    }
    expect(await state(id)).toEqual(before);
    // Once the row is free, the same write goes through.
    expect((await client.app.inject({ method: 'PUT', url: `/products/${id}`, payload: { name: 'Written now' } })).statusCode).toBe(200);
  });

  it('recognises write conflicts and lock timeouts in every wrapping, and nothing else', () => {
    expect(isWriteConflict({ code: '40001' })).toBe(true);
    expect(isWriteConflict({ code: 'P2034' })).toBe(true);
    expect(isWriteConflict({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '40P01' } } } })).toBe(true);
    expect(isWriteConflict({ code: '23505' })).toBe(false);
    expect(isWriteConflict(new Error('40001'))).toBe(false);
    expect(isLockTimeout({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '55P03' } } } })).toBe(true);
    expect(isLockTimeout({ code: '57014' })).toBe(false);
  });
});

async function deadlocks(): Promise<number> {
  const { n } = await catalogue.direct.one<{ n: number }>('SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()');
  return n;
}
