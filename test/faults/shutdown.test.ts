// SIGTERM drains a real server process (`node src/main.ts`), in one process
// and with two cluster workers: a write in flight (blocked on a row lock the
// test holds) when the signal arrives still completes with 200; meanwhile new
// connections are refused; once it is done the process exits with code 0, in
// a bounded time.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, useTestCatalogue } from '../support/catalogue-app.ts';
import { HeldLocks, lockWaiters } from '../support/locks.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';

const catalogue = useTestCatalogue();
/** Headers of a write: writes need an API key. */
let writeHeaders: Record<string, string>;
beforeAll(async () => {
  writeHeaders = { 'content-type': 'application/json', authorization: `Bearer ${await createTestApiKey(catalogue.db.url)}` };
});

/** One request on a connection of its own: its status, or the connection error's code. */
function onNewConnection(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.request(`${url}/healthz`, { agent: false, timeout: 1_000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.on('timeout', () => request.destroy(new Error('no answer')));
    request.end();
  });
}

/**
 * New connections, one after another, until one is not served (the signal
 * takes a moment to arrive): what each got, the refusal last.
 */
async function untilRefused(url: string): Promise<(number | string)[]> {
  const outcomes: (number | string)[] = [];
  for (let i = 0; i < 100; i++) {
    const outcome = await onNewConnection(url);
    outcomes.push(outcome);
    if (outcome !== 200 && outcome !== 'no answer') return outcomes;
    await new Promise((r) => setTimeout(r, 30));
  }
  return outcomes;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms))]);
}

describe.each([
  // One process: the listening socket closes, so a new connection is refused
  // (or reset, when it was still in the socket's backlog as it closed).
  { workers: 1, refused: ['ECONNREFUSED', 'ECONNRESET', 503], hangs: 0 },
  // Cluster: the primary's socket closes once every worker has stopped
  // listening; a connection caught in between is reset, or (node:cluster's
  // round-robin handing it to the last worker as that one leaves) left
  // unanswered until the process exits: see docs/operations.md, Failure behaviour.
  { workers: 2, refused: ['ECONNREFUSED', 'ECONNRESET', 503], hangs: 1 },
])('SIGTERM with WORKERS=$workers', ({ workers, refused, hangs }) => {
  let server: ApiProcess | undefined;
  afterAll(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('finishes the request in flight, refuses new connections, exits 0', async () => {
    server = await startApiProcess({
      DATABASE_URL: catalogue.db.url, WORKERS: String(workers), CACHE: 'off',
      // The lock is held for as long as the test needs, not cut short by a timeout.
      DATABASE_STATEMENT_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '30000',
    }, { output: workers > 1 ? new RegExp(`all ${workers} workers listening`) : /GraphQL API on/ });
    const id = 20 + workers;
    const name = `Written while draining (${workers})`;
    const lock = await HeldLocks.take(catalogue.db.url, `SELECT id FROM products WHERE id = ${id} FOR UPDATE`);
    let inFlight: Promise<{ status: number; body: { name?: string } }> | undefined;
    try {
      inFlight = fetch(`${server.url}/products/${id}`, { method: 'PUT', headers: writeHeaders, body: JSON.stringify({ name }) })
        .then(async (response) => ({ status: response.status, body: await response.json() as { name?: string } }));
      inFlight.catch(() => {});
      await lockWaiters(catalogue.db.url, 1);

      server.child.kill('SIGTERM');
      const outcomes = await untilRefused(server.url);
      expect(refused, outcomes.join(', ')).toContain(outcomes.at(-1));
      expect(outcomes.filter((o) => o === 'no answer').length, outcomes.join(', ')).toBeLessThanOrEqual(hangs);
      // Still draining: the process waits for the blocked request.
      expect(server.child.exitCode).toBeNull();
    } finally {
      await lock.release();
    }
    const released = performance.now();
    expect(await within(inFlight!, 10_000, 'the in-flight request')).toEqual({ status: 200, body: expect.objectContaining({ name }) });
    expect(await within(server.exited, 10_000, 'exiting')).toEqual({ code: 0, signal: null });
    expect(performance.now() - released).toBeLessThan(10_000);
    expect(await catalogue.direct.one('SELECT name FROM products WHERE id = $1', [id])).toEqual({ name });
    expect(server.output()).toMatch(/SIGTERM received/);
  });
});

describe('SIGTERM with a request that outlives SHUTDOWN_TIMEOUT_MS', () => {
  it('exits 1 after the deadline instead of waiting for it', async () => {
    const server = await startApiProcess({ DATABASE_URL: catalogue.db.url, CACHE: 'off', DATABASE_STATEMENT_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '500' });
    const lock = await HeldLocks.take(catalogue.db.url, 'SELECT id FROM products WHERE id = 30 FOR UPDATE');
    try {
      fetch(`${server.url}/products/30`, { method: 'PUT', headers: writeHeaders, body: '{"name":"never"}' }).catch(() => {});
      await lockWaiters(catalogue.db.url, 1);
      const signalled = performance.now();
      server.child.kill('SIGTERM');
      expect(await within(server.exited, 10_000, 'exiting')).toEqual({ code: 1, signal: null });
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(450);
      expect(server.output()).toMatch(/requests still in flight after 500 ms/);
    } finally {
      await lock.release();
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
