// A burst of subscriptions to many ids (docs/subscriptions.md, "Caps"): the
// hub reads their first states in slices of MAX_JOBS_PER_BATCH jobs with the
// event loop free between them, not all in one turn. An outside run that
// subscribed 20,000 ids at once (one key within its caps) held the event loop
// for over a second, every other client's request waiting behind it.
//
// What is asserted is the event, not a time: a setImmediate loop counts the
// hub's executions between two of its turns, and no turn may hold more than
// one slice's.
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

describe('a burst of subscriptions to many ids', () => {
  const client = useTestClient(catalogue);
  let url: string;
  let socket: WebSocket | undefined;

  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
  });

  afterAll(() => socket?.terminate());

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
    socket = new WebSocket(url, 'graphql-transport-ws');
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { data?: { productChanged?: { id: string } } } };
      if (message.type === 'connection_ack') {
        for (let s = 0; s < SUBSCRIPTIONS; s++) {
          socket!.send(JSON.stringify({ id: String(s), type: 'subscribe', payload: { query: LIVE, variables: { ids: ids.slice(s * IDS_EACH, (s + 1) * IDS_EACH) } } }));
        }
      }
      const changed = message.payload?.data?.productChanged;
      if (message.type === 'next' && changed) received.add(`${message.id}:${changed.id}`);
    });
    socket.on('open', () => socket!.send(JSON.stringify({ type: 'connection_init' })));
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
});
