// A burst of subscriptions to many ids (docs/subscriptions.md, "Caps"): the
// hub reads their first states in slices of MAX_JOBS_PER_BATCH jobs with the
// event loop free between them, not all in one turn. An outside run that
// subscribed 20,000 ids at once (one key within its caps) held the event loop
// for over a second, every other client's request waiting behind it.
//
// What is asserted is the event, not a time: a setImmediate loop counts the
// hub's executions between two of its turns, and no turn may hold more than
// one slice's; and a change to a product someone already watches, heard
// while a burst's first states wait, is sent before the burst's last slice
// (an outside run saw a watcher go 12 s without its change behind 80,000
// first states).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_JOBS_PER_BATCH } from '../../src/graphql/subscriptions/hub.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { until } from '../support/wait.ts';

const LIVE = 'subscription Live($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name } } }';
/** Subscriptions of 100 ids each (LIVE_MAX_IDS's default) on one WebSocket: 1,200 first states. */
const SUBSCRIPTIONS = 12;
const IDS_EACH = 100;

const catalogue = useTestCatalogue();

/** `ids` as subscriptions of IDS_EACH ids. */
const slices = (ids: string[]) => Array.from({ length: Math.ceil(ids.length / IDS_EACH) }, (_, s) => ids.slice(s * IDS_EACH, (s + 1) * IDS_EACH));

/** A graphql-transport-ws client that subscribes `subscriptions` (lists of ids) once acknowledged and hands every productChanged result to `onNext`. */
function subscriber(url: string, subscriptions: string[][], onNext: (id: string, name: string | undefined) => void): WebSocket {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { data?: { productChanged?: { id: string; product: { name: string } | null } } } };
    if (message.type === 'connection_ack') {
      subscriptions.forEach((ids, s) => socket.send(JSON.stringify({ id: String(s), type: 'subscribe', payload: { query: LIVE, variables: { ids } } })));
    }
    const changed = message.payload?.data?.productChanged;
    if (message.type === 'next' && changed) onNext(`${message.id}:${changed.id}`, changed.product?.name);
  });
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
  return socket;
}

describe('a burst of subscriptions to many ids', () => {
  const client = useTestClient(catalogue);
  let url: string;
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
  });

  afterAll(() => {
    for (const socket of sockets) socket.terminate();
  });

  it('is read in slices, the event loop turning between them', async () => {
    const hub = client.server.live!.hub;
    const stored = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT $1', [SUBSCRIPTIONS * IDS_EACH])).map((r) => r.id);
    // Ids past the catalogue's are watched too (their state is null): each is a job all the same.
    const ids = Array.from({ length: SUBSCRIPTIONS * IDS_EACH }, (_, i) => String(stored[i] ?? 10_000_000 + i));

    // The most executions the hub ran within one turn of the event loop.
    let most = 0;
    let last = hub.stats.executions;
    let turning = true;
    const turn = () => {
      most = Math.max(most, hub.stats.executions - last);
      last = hub.stats.executions;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);

    const received = new Set<string>();
    sockets.push(subscriber(url, slices(ids), (key) => received.add(key)));
    const batchesBefore = hub.stats.batches;
    try {
      await until(`${ids.length} first states`, () => received.size === ids.length, { timeoutMs: 60_000 });
    } finally {
      turning = false;
    }
    expect(received.size).toBe(ids.length);
    expect(hub.stats.batches - batchesBefore).toBeGreaterThanOrEqual(Math.ceil(ids.length / MAX_JOBS_PER_BATCH));
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(MAX_JOBS_PER_BATCH);
  });

  it('sends a change to a watched product before the first states queued ahead of it', async () => {
    const [watched] = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id DESC LIMIT 1')).map((r) => String(r.id));
    // Eight slices of first states, none of them the watched product (ids past the catalogue's).
    const burst = Array.from({ length: 8 * MAX_JOBS_PER_BATCH }, (_, i) => String(20_000_000 + i));
    const CHANGED = 'changed during a burst';
    const firstStates = new Set<string>();
    let seen = 0;
    let firstStatesAtChange: number | undefined;
    sockets.push(subscriber(url, [[watched!]], (_key, name) => {
      seen++;
      if (name === CHANGED) firstStatesAtChange ??= firstStates.size;
    }));
    await until('the watched product\'s first state', () => seen > 0);

    let changed: Promise<unknown> | undefined;
    sockets.push(subscriber(url, slices(burst), (key) => {
      firstStates.add(key);
      // The first slice has been sent: the other seven wait, and the change is heard behind them
      // (within a slice or two: the batch under way when the notification comes is not changed).
      changed ??= catalogue.direct.rows('UPDATE products SET name = $2 WHERE id = $1', [watched, CHANGED]);
    }));
    await until('the change', () => firstStatesAtChange !== undefined, { timeoutMs: 60_000 });
    await changed;
    await until(`${burst.length} first states`, () => firstStates.size === burst.length, { timeoutMs: 60_000 });
    expect(firstStatesAtChange).toBeLessThanOrEqual(burst.length - MAX_JOBS_PER_BATCH);
  });
});
