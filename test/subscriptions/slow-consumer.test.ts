// A slow consumer (docs/subscriptions.md, "Slow consumers"): a real client
// subscribes, then stops reading its socket while the products it watches go
// on changing. The kernel's buffers fill (events carrying a 50 KB name), then
// what the server holds for it must stay one pending result per product
// however many changes come (they coalesce to the latest), and once
// nothing has been taken for LIVE_SLOW_CONSUMER_MS its WebSocket is closed
// with 1013 and its SSE stream is cut.
import http from 'node:http';
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { LiveSubscription } from '../../src/graphql/subscriptions/hub.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { starvation } from '../support/wait.ts';

const SLOW_MS = 6_000;
/** The subscriber counts as stuck once it has taken nothing for this long. */
const FULL_MS = 500;
/** How long small changes are made at it then (well within SLOW_MS). */
const CHANGE_MS = 2_500;
const LIVE = 'subscription Live($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name } } }';

const catalogue = useTestCatalogue();

describe('a subscriber that stops reading', () => {
  const client = useTestClient(catalogue, { env: { LIVE_SLOW_CONSUMER_MS: String(SLOW_MS) } });
  let port: number;
  let ids: string[];

  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
    ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 3')).map((r) => String(r.id));
  });

  const hub = () => client.server.live!.hub;

  /** The one subscription the hub holds back for a transport that took nothing (or undefined). */
  function blocked(): LiveSubscription | undefined {
    const all = [...hub().blocked];
    expect(all.length).toBeLessThanOrEqual(1);
    return all[0];
  }

  /**
   * Commits changes, one transaction each, to the watched products in turn:
   * ones with a 50 KB name until the subscriber's transport has taken nothing
   * for FULL_MS (both ends' buffers are full), then small ones for CHANGE_MS,
   * as fast as two connections go. Returns the largest backlog the stalled
   * subscriber had meanwhile, and how many results were handed to it then.
   */
  async function changeWhileStalled(): Promise<{ maxBacklog: number; pushed: number; changes: number; stalledBefore: number }> {
    const stalledBefore = hub().stats.stalled;
    let i = 0;
    const change = (name: string) => catalogue.direct.rows('UPDATE products SET name = $2 WHERE id = $1', [ids[i++ % ids.length], name]);
    const stuckFor = () => { const since = blocked()?.blockedSince; return since === undefined ? 0 : performance.now() - since; };
    for (const deadline = Date.now() + 30_000; stuckFor() < FULL_MS;) {
      if (Date.now() > deadline) throw new Error(`the buffers did not fill with ${i} changes of 50 KB`);
      await change(`${'x'.repeat(50_000)} ${i}`);
    }
    let maxBacklog = 0;
    let changes = 0;
    const deliveriesBefore = hub().stats.deliveries;
    const watch = setInterval(() => { maxBacklog = Math.max(maxBacklog, blocked()?.backlog ?? 0); }, 5);
    try {
      const until = performance.now() + CHANGE_MS;
      const writer = async () => { while (performance.now() < until) { await change(`small ${i}`); changes++; } };
      await Promise.all([writer(), writer()]);
      // The last changes heard and handed to it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      maxBacklog = Math.max(maxBacklog, blocked()?.backlog ?? 0);
    } finally {
      clearInterval(watch);
    }
    expect(hub().stats.stalled, 'stalled before the changes were over: raise SLOW_MS').toBe(stalledBefore);
    return { maxBacklog, pushed: hub().stats.deliveries - deliveriesBefore, changes, stalledBefore };
  }

  async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not ${what} within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('WebSocket: the backlog stays one result per product however many change; closed with 1013 after LIVE_SLOW_CONSUMER_MS', async () => {
    let tcp: net.Socket | undefined;
    // ws's own client over a socket this test holds, so it can stop reading it.
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws', {
      createConnection: (options: object) => (tcp = net.connect(options as net.NetConnectOpts)),
    });
    const states = new Set<string>();
    const closed = new Promise<{ code: number; at: number }>((resolve) => socket.on('close', (code) => resolve({ code, at: performance.now() })));
    socket.on('error', () => {});
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${client.apiKey}` } })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { productChanged?: { id: string } } } };
      if (message.type === 'connection_ack') socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: LIVE, variables: { ids } } }));
      const id = message.payload?.data?.productChanged?.id;
      if (message.type === 'next' && id) states.add(id);
    });
    try {
      await until(() => states.size === ids.length, 5_000, 'every current state received');
      // Stops reading: what the server sends piles up in the kernel, then in the server.
      tcp!.pause();
      const { maxBacklog, pushed, stalledBefore } = await changeWhileStalled();
      // Hundreds of results were handed to it, but it never held more than one per product.
      expect(pushed).toBeGreaterThan(50);
      expect(maxBacklog).toBeGreaterThan(0);
      expect(maxBacklog).toBeLessThanOrEqual(ids.length);
      // Nothing taken for LIVE_SLOW_CONSUMER_MS: the server gives up on it.
      await until(() => hub().stats.stalled > stalledBefore, SLOW_MS + 5_000, 'stalled');
      expect(hub().blocked.size).toBe(0);
      // Reading again: what was buffered, then the close frame the server queued behind it.
      tcp!.resume();
      const close = await closed;
      expect(close.code).toBe(1013);
      // The server's side ends when the client's answer to the close frame arrives.
      await until(() => client.server.live!.ws.size === 0 && hub().subscriptions === 0, 2_000, 'the connection and its subscription gone on the server');
    } finally {
      socket.terminate();
    }
  }, 60_000);

  it('SSE: the same backlog bound, and the stream is cut after LIVE_SLOW_CONSUMER_MS', async () => {
    const states = new Set<string>();
    let response: http.IncomingMessage | undefined;
    let buffer = '';
    let completed = false;
    const request = http.request({
      host: '127.0.0.1', port, path: '/graphql/stream', method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${client.apiKey}` },
    });
    request.on('error', () => {});
    const ended = new Promise<void>((resolve) => request.once('response', (r) => {
      response = r;
      r.setEncoding('utf8');
      r.on('error', () => {});
      r.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (event.includes('event: complete')) completed = true;
          const data = /^data: (.*)$/m.exec(event)?.[1];
          const id = data && event.includes('event: next') ? (JSON.parse(data) as { data?: { productChanged?: { id: string } } }).data?.productChanged?.id : undefined;
          if (id) states.add(id);
        }
      });
      r.once('close', () => resolve());
    }));
    request.end(JSON.stringify({ query: LIVE, variables: { ids } }));
    try {
      await until(() => states.size === ids.length, 5_000, 'every current state received');
      expect(response!.statusCode).toBe(200);
      expect(client.server.live!.sse.size).toBe(1);
      response!.pause();
      response!.socket.pause();
      const { maxBacklog, pushed, stalledBefore } = await changeWhileStalled();
      expect(pushed).toBeGreaterThan(50);
      expect(maxBacklog).toBeGreaterThan(0);
      expect(maxBacklog).toBeLessThanOrEqual(ids.length);
      await until(() => hub().stats.stalled > stalledBefore, SLOW_MS + 5_000, 'stalled');
      // The server ended it: no stream left on its side, and the reader's stream ends without `complete`.
      await until(() => client.server.live!.sse.size === 0, 2_000, 'the stream closed on the server');
      response!.socket.resume();
      response!.resume();
      await ended;
      expect(completed).toBe(false);
      expect(hub().subscriptions).toBe(0);
    } finally {
      request.destroy();
    }
  }, 60_000);
});

describe('a WebSocket that stops answering pings', () => {
  const PING_MS = 600;
  const client = useTestClient(catalogue, { env: { LIVE_PING_MS: String(PING_MS) } });
  let url: string;
  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/graphql`;
  });

  /** A connection that has been acknowledged; `autoPong: false` never answers a ping. */
  async function connect(autoPong: boolean): Promise<{ socket: WebSocket; closedAt: Promise<number>; pings: () => number }> {
    const socket = new WebSocket(url, 'graphql-transport-ws', { autoPong });
    let pings = 0;
    socket.on('ping', () => pings++);
    socket.on('error', () => {});
    const closedAt = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${client.apiKey}` } })));
      socket.on('message', (data) => { if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve(); });
      socket.on('close', () => reject(new Error('closed before connection_ack')));
    });
    return { socket, closedAt, pings: () => pings };
  }

  it('is cut within two LIVE_PING_MS periods, while one that answers stays, pinged about once a period', async () => {
    const connections = await Promise.all(Array.from({ length: 60 }, (_, i) => connect(i > 0)));
    const [mute, ...answering] = connections;
    const started = performance.now();
    const starved = starvation();
    try {
      const closedAt = await Promise.race([mute!.closedAt, new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), 4 * PING_MS))]);
      // Two periods, plus the time a loaded host kept this process (the server's timers are in it) from running.
      expect(closedAt - started).toBeLessThanOrEqual(2 * PING_MS + 300 + starved.stop());
      await new Promise((resolve) => setTimeout(resolve, 3 * PING_MS));
      const elapsedPeriods = (performance.now() - started) / PING_MS;
      for (const connection of answering) {
        expect(connection.socket.readyState).toBe(WebSocket.OPEN);
        // Each one once a period (its first ping may come at once), never a slice's rate.
        expect(connection.pings()).toBeGreaterThanOrEqual(Math.floor(elapsedPeriods) - 1);
        expect(connection.pings()).toBeLessThanOrEqual(Math.ceil(elapsedPeriods) + 1);
      }
    } finally {
      for (const connection of connections) connection.socket.terminate();
    }
  }, 30_000);
});
