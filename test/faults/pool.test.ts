// A saturated pool and a statement that waits too long. With one connection,
// held by a write blocked on a row lock the test holds, another request
// queues for DATABASE_POOL_QUEUE_TIMEOUT_MS and then answers 503 (REST and
// GraphQL), instead of waiting for as long as the lock lasts; once the lock
// goes, the blocked write completes and the pool serves again. A write that
// waits on a lock for longer than DATABASE_STATEMENT_TIMEOUT_MS is cancelled
// by Postgres and answers 503, leaving nothing written.
import { describe, expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../../src/db/failures/unavailable.ts';
import { useTestCatalogue, useTestClient, type TestClient } from '../support/catalogue-app.ts';
import { HeldLocks, lockWaiters } from '../support/locks.ts';

const QUEUE_TIMEOUT_MS = 400;
const STATEMENT_TIMEOUT_MS = 600;

const catalogue = useTestCatalogue();

async function timedInject(client: TestClient, method: 'GET' | 'PUT', url: string, body?: unknown) {
  const started = performance.now();
  const response = await client.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body || 'null'), ms: performance.now() - started };
}

describe('a pool of one connection, held by a blocked write', () => {
  const client = useTestClient(catalogue, {
    nodeEnv: 'production',
    env: { DATABASE_POOL_SIZE: '1', DATABASE_POOL_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS), DATABASE_STATEMENT_TIMEOUT_MS: '20000' },
  });

  it('queues other requests for the queue timeout, then answers 503; serves them again once the connection is free', async () => {
    const lock = await HeldLocks.take(catalogue.db.url, 'SELECT id FROM products WHERE id = 5 FOR UPDATE');
    let blocked: Promise<Awaited<ReturnType<typeof timedInject>>> | undefined;
    try {
      blocked = timedInject(client, 'PUT', '/products/5', { name: 'Written after the lock' });
      await lockWaiters(catalogue.db.url, 1);

      const read = await timedInject(client, 'GET', '/products/6');
      expect(read.status).toBe(503);
      expect(read.body).toEqual({ error: DATABASE_UNAVAILABLE_MESSAGE });
      expect(read.headers['retry-after']).toBe('2');
      // It waited in the queue, and no longer than the queue timeout (plus scheduling slack).
      expect(read.ms).toBeGreaterThanOrEqual(QUEUE_TIMEOUT_MS - 50);
      expect(read.ms).toBeLessThan(QUEUE_TIMEOUT_MS + 1_500);

      const started = performance.now();
      const query = await client.post('{ product(id: "6") { id name } }');
      expect(query.status).toBe(503);
      expect(query.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
      expect(performance.now() - started).toBeLessThan(QUEUE_TIMEOUT_MS + 1_500);
    } finally {
      await lock.release();
    }
    const write = await blocked!;
    expect(write.status).toBe(200);
    expect(write.body.name).toBe('Written after the lock');
    expect((await timedInject(client, 'GET', '/products/6')).status).toBe(200);
  });
});

describe('a write blocked past the statement timeout', () => {
  const client = useTestClient(catalogue, { nodeEnv: 'production', env: { DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) } });

  it('is cancelled by Postgres: 503 after about the timeout, nothing written, REST and GraphQL', async () => {
    const before = await catalogue.direct.one<{ name: string }>('SELECT name FROM products WHERE id = 7');
    const lock = await HeldLocks.take(catalogue.db.url, 'SELECT id FROM products WHERE id = 7 FOR UPDATE');
    try {
      const put = await timedInject(client, 'PUT', '/products/7', { name: 'Too late' });
      expect(put.status).toBe(503);
      expect(put.body).toEqual({ error: DATABASE_UNAVAILABLE_MESSAGE });
      expect(put.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
      expect(put.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 2_000);

      const mutation = await client.post('mutation { updateProduct(id: "7", input: { name: "Too late" }) { id } }');
      expect(mutation.status).toBe(503);
      expect(mutation.body.errors?.[0]).toMatchObject({ message: DATABASE_UNAVAILABLE_MESSAGE, extensions: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await lock.release();
    }
    expect(await catalogue.direct.one('SELECT name FROM products WHERE id = 7')).toEqual(before);
    expect((await timedInject(client, 'PUT', '/products/7', { name: 'In time' })).status).toBe(200);
  });
});
