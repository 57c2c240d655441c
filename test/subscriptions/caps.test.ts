// No one client can take a process's live capacity (issue 45: 10,000
// WebSockets from one address starved every other request; a million watched
// ids from one key took a process to 2 GB; upgrades that never sent
// connection_init cost nothing). Small caps, clients told apart by
// X-Forwarded-For (TRUST_PROXY=on): past a cap, a WebSocket is closed with a
// code and a reason naming the setting (4429 the client's own cap, 1013 the
// process's or too many awaiting connection_init; an upgrade refused again
// within the second is closed before the handshake), an SSE request gets 429 or
// 503 with Retry-After, a subscription an `error`; other clients go on.
import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApiKey, type TestClient, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';

const STOCK = `subscription Stock($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name } } }`;

const catalogue = useTestCatalogue();

/** The client's server, listening on a free port; its base URL. */
function listening(client: TestClient): () => string {
  let base = '';
  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  return () => base;
}

interface RawSocket {
  socket: WebSocket;
  /** Resolves with how it closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves true once acknowledged (connection_ack), false if closed first. */
  acked: Promise<boolean>;
}

/** The longest a test waits for a WebSocket to be acknowledged or closed. */
const WAIT_MS = 5_000;

/** Every raw socket a test opened, terminated after it whatever happened. */
const opened: WebSocket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.terminate();
});

/** A graphql-transport-ws connection from `address` (X-Forwarded-For; none if empty); sends connection_init (with `key`) unless `init` is false. */
function rawWs(base: string, address: string, options: { init?: boolean; key?: string } = {}): RawSocket {
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: address ? { 'x-forwarded-for': address } : {} });
  opened.push(socket);
  socket.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a WebSocket from ${address || 'this address'} not closed within ${WAIT_MS} ms`)), WAIT_MS);
    socket.on('close', (code, reason) => { clearTimeout(timer); resolve({ code, reason: String(reason) }); });
  });
  closed.catch(() => {});
  const acked = new Promise<boolean>((resolve, reject) => {
    setTimeout(() => reject(new Error(`a WebSocket from ${address || 'this address'} neither acknowledged nor closed within ${WAIT_MS} ms`)), WAIT_MS).unref();
    socket.on('message', (data) => { if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve(true); });
    closed.then(() => resolve(false), () => {});
  });
  if (options.init !== false) {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: options.key ? { authorization: `Bearer ${options.key}` } : {} })));
  }
  return { socket, closed, acked };
}

/** An SSE request from `address`; its status, Retry-After and error (the body is cancelled). */
async function sseStatus(base: string, address: string, ids: string[], key?: string): Promise<{ status: number; retryAfter: string | null; error?: { message: string; extensions: Record<string, unknown> } }> {
  const response = await fetch(`${base}/graphql/stream`, {
    method: 'POST', body: JSON.stringify({ query: STOCK, variables: { ids } }),
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-forwarded-for': address, ...(key ? { authorization: `Bearer ${key}` } : {}) },
  });
  if (response.status === 200) {
    await response.body?.cancel();
    return { status: 200, retryAfter: null };
  }
  const body = await response.json() as { errors: { message: string; extensions: Record<string, unknown> }[] };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), error: body.errors[0] };
}

/** What a raw WebSocket upgrade from `address` (X-Forwarded-For) is answered before the server closes it ('' if nothing). */
function upgradeAnswer(base: string, address: string): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(base).port) });
  socket.on('error', () => {});
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`an upgrade from ${address} neither answered nor closed within ${WAIT_MS} ms: ${JSON.stringify(text)}`));
    }, WAIT_MS);
    socket.on('data', (chunk) => { text += String(chunk); });
    socket.on('close', () => { clearTimeout(timer); resolve(text); });
    socket.write(`GET /graphql HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\nX-Forwarded-For: ${address}\r\n\r\n`);
  });
}

/** Closes what the test opened, and waits until the server has given back every place (closes are asynchronous). */
async function drained(client: TestClient): Promise<void> {
  for (const socket of opened.splice(0)) socket.terminate();
  const deadline = Date.now() + 5_000;
  const held = () => client.server.live!.capacity.held;
  while (held().connections > 0 || held().subscriptions > 0) {
    if (Date.now() > deadline) throw new Error(`still held: ${JSON.stringify(held())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('caps on live connections and subscriptions', () => {
  const client = useTestClient(catalogue, {
    env: {
      TRUST_PROXY: 'on', LIVE_MAX_IDS: '4', LIVE_MAX_CONNECTIONS: '12', LIVE_MAX_CONNECTIONS_PER_ADDRESS: '5', LIVE_MAX_CONNECTIONS_PER_KEY: '3',
      LIVE_MAX_PENDING_PER_ADDRESS: '2', LIVE_MAX_SUBSCRIPTIONS: '8', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '3', LIVE_MAX_WATCHED_IDS: '14', LIVE_MAX_WATCHED_IDS_PER_CLIENT: '6',
    },
  });
  const base = listening(client);
  let ids: string[];
  beforeAll(async () => {
    ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 8')).map((r) => String(r.id));
  });
  afterEach(async () => drained(client));

  it('connections per address: past LIVE_MAX_CONNECTIONS_PER_ADDRESS, 4429 / 429 naming it; another address connects, and REST is served meanwhile', async () => {
    // Twice the cap at once from one address, as a flood would come.
    const flood = Array.from({ length: 10 }, () => rawWs(base(), '203.0.113.1'));
    const acked = await Promise.all(flood.map((s) => s.acked));
    expect(acked.filter(Boolean)).toHaveLength(5);
    const refused = await Promise.all(flood.filter((_, i) => !acked[i]).map((s) => s.closed));
    // Told once a second: one 4429 naming it, the others closed before the handshake (1006: no close frame).
    expect(refused.filter((close) => close.code === 4429)).toEqual([{ code: 4429, reason: 'at most 5 live connections per address (LIVE_MAX_CONNECTIONS_PER_ADDRESS)' }]);
    expect(refused.filter((close) => close.code !== 4429)).toEqual(Array(4).fill({ code: 1006, reason: '' }));
    expect(await sseStatus(base(), '203.0.113.1', [ids[0]!])).toEqual({
      status: 429, retryAfter: '5',
      error: { message: 'at most 5 live connections per address (LIVE_MAX_CONNECTIONS_PER_ADDRESS)', extensions: { code: 'TOO_MANY_CONNECTIONS', limit: 5, retryAfter: 5 } },
    });
    expect(await rawWs(base(), '203.0.113.2').acked).toBe(true);
    expect((await sseStatus(base(), '203.0.113.2', [ids[0]!])).status).toBe(200);
    const rest = await Promise.all(Array.from({ length: 10 }, () => fetch(`${base()}/products/${ids[0]}/styles`, { headers: { 'x-forwarded-for': '203.0.113.1' } })));
    expect(rest.map((r) => r.status)).toEqual(Array(10).fill(200));
    // Closing one makes room for the next.
    flood.find((_, i) => acked[i])!.socket.close();
    await expect.poll(() => client.server.live!.capacity.held.connections, { timeout: 5_000 }).toBe(5);
    expect(await rawWs(base(), '203.0.113.1').acked).toBe(true);
  });

  it('WebSockets awaiting connection_init: past LIVE_MAX_PENDING_PER_ADDRESS, 1013 naming it (once a second; closed before the handshake otherwise); once they init there is room', async () => {
    const silent = [rawWs(base(), '203.0.113.3', { init: false }), rawWs(base(), '203.0.113.3', { init: false })];
    await Promise.all(silent.map(({ socket }) => new Promise((resolve) => socket.once('open', resolve))));
    expect(await rawWs(base(), '203.0.113.3', { init: false }).closed).toEqual({ code: 1013, reason: 'at most 2 WebSockets per address may await connection_init (LIVE_MAX_PENDING_PER_ADDRESS)' });
    // Told once a second: the address's next refusal meanwhile is closed before any handshake (a reconnect loop costs a close, not a WebSocket).
    expect(await upgradeAnswer(base(), '203.0.113.3')).toBe('');
    for (const { socket } of silent) socket.send(JSON.stringify({ type: 'connection_init' }));
    expect(await Promise.all(silent.map((s) => s.acked))).toEqual([true, true]);
    expect(await rawWs(base(), '203.0.113.3').acked).toBe(true);
  });

  it('an upgrade ws refuses (malformed) or a socket gone before it is taken gives its place back', async () => {
    for (let i = 0; i < 6; i++) {
      const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(base()).port) });
      socket.on('error', () => {});
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => { text += String(chunk); });
        socket.on('close', () => resolve(text));
        // No Sec-WebSocket-Key: ws answers 400 and never hands the socket over.
        socket.write('GET /graphql HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
    }
    await expect.poll(() => client.server.live!.capacity.held.connections, { timeout: 5_000 }).toBe(0);
    expect(await rawWs(base(), '203.0.113.9').acked).toBe(true);
  });

  it('connections per key: past LIVE_MAX_CONNECTIONS_PER_KEY, 4429 / 429 naming it, from any address', async () => {
    const key = await createTestApiKey(catalogue.db.url, { name: 'caps: connections' });
    const held = ['198.51.100.1', '198.51.100.2', '198.51.100.3'].map((address) => rawWs(base(), address, { key }));
    expect(await Promise.all(held.map((s) => s.acked))).toEqual([true, true, true]);
    const fourth = rawWs(base(), '198.51.100.4', { key });
    expect(await fourth.closed).toEqual({ code: 4429, reason: 'at most 3 live connections per API key (LIVE_MAX_CONNECTIONS_PER_KEY)' });
    expect(await sseStatus(base(), '198.51.100.5', [ids[0]!], key)).toMatchObject({ status: 429, retryAfter: '5', error: { extensions: { code: 'TOO_MANY_CONNECTIONS', limit: 3 } } });
    expect(await rawWs(base(), '198.51.100.4').acked).toBe(true);
  });

  it('connections per process: past LIVE_MAX_CONNECTIONS, 1013 / 503 naming it', async () => {
    const held = Array.from({ length: 12 }, (_, i) => rawWs(base(), `192.0.2.${i + 1}`));
    expect((await Promise.all(held.map((s) => s.acked))).every(Boolean)).toBe(true);
    expect(await rawWs(base(), '192.0.2.100').closed).toEqual({ code: 1013, reason: 'this server holds its most live connections, 12 (LIVE_MAX_CONNECTIONS): try again shortly' });
    expect(await sseStatus(base(), '192.0.2.101', [ids[0]!])).toMatchObject({ status: 503, retryAfter: '5', error: { extensions: { code: 'SERVICE_UNAVAILABLE', limit: 12 } } });
    const rest = await fetch(`${base()}/products/${ids[0]}/styles`);
    expect(rest.status).toBe(200);
  });

  it('subscriptions and watched ids per client and per process: an `error` / 429 or 503 naming the setting; the others go on', async () => {
    const key = await createTestApiKey(catalogue.db.url, { name: 'caps: subscriptions' });
    const ws = wsClient(base(), { apiKey: key, headers: { 'x-forwarded-for': '198.51.100.20' } });
    const others = wsClient(base(), { headers: { 'x-forwarded-for': '198.51.100.21' } });
    const refusal = async (request: ReturnType<typeof subscribeWs>) => {
      await request.received.until((r) => r.error !== undefined || r.changes.length > 0, 20_000, 'an answer');
      return (request.received.error as { message: string; extensions: Record<string, unknown> }[] | undefined)?.[0];
    };
    try {
      // The key: 4 + 2 = 6 watched ids (its cap), then one more id is refused.
      const four = subscribeWs(ws, { query: STOCK, variables: { ids: ids.slice(0, 4) } });
      const two = subscribeWs(ws, { query: STOCK, variables: { ids: ids.slice(4, 6) } });
      for (const s of [four, two]) expect(await refusal(s)).toBeUndefined();
      expect(await refusal(subscribeWs(ws, { query: STOCK, variables: { ids: [ids[6]] } }))).toEqual({
        message: 'at most 6 watched product ids per API key (LIVE_MAX_WATCHED_IDS_PER_CLIENT); this subscription has 1 and 6 are watched: complete one first',
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 6, retryAfter: 5 },
      });
      expect(await sseStatus(base(), '198.51.100.22', [ids[6]!], key)).toMatchObject({ status: 429, error: { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 6 } } });
      // Another client (an address): 3 subscriptions (its cap), the fourth refused.
      const three = [0, 1, 2].map((i) => subscribeWs(others, { query: STOCK, variables: { ids: [ids[i]] } }));
      for (const s of three) expect(await refusal(s)).toBeUndefined();
      expect(await refusal(subscribeWs(others, { query: STOCK, variables: { ids: [ids[3]] } }))).toMatchObject({
        message: 'at most 3 subscriptions per address (LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT): complete one first', extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 3 },
      });
      // The process: 9 ids watched of 14; a third client's 4 fit, then 4 more do not.
      const sse = sseClient(base(), { headers: { 'x-forwarded-for': '198.51.100.23' } });
      try {
        const first = subscribeSse(sse, { query: STOCK, variables: { ids: ids.slice(0, 4) } });
        await first.received.until((r) => r.changes.length === 4, 20_000, 'the current states');
        expect(await sseStatus(base(), '198.51.100.24', ids.slice(4, 8))).toMatchObject({
          status: 503, retryAfter: '5',
          error: { message: 'this server watches its most product ids, 14 (LIVE_MAX_WATCHED_IDS): try again shortly', extensions: { code: 'SERVICE_UNAVAILABLE', limit: 14 } },
        });
        // The subscriptions held go on.
        await catalogue.direct.rows(`UPDATE products SET name = 'Capped but live' WHERE id = $1`, [ids[0]]);
        await four.received.until((r) => r.latest(ids[0]!)?.name === 'Capped but live', 20_000, 'the change');
        await first.received.until((r) => r.latest(ids[0]!)?.name === 'Capped but live', 20_000, 'the change');
        // Completing one makes room.
        two.dispose();
        await expect.poll(() => client.server.live!.capacity.held.watches, { timeout: 5_000 }).toBe(11);
        expect(await refusal(subscribeWs(ws, { query: STOCK, variables: { ids: [ids[6]] } }))).toBeUndefined();
      } finally {
        sse.dispose();
      }
    } finally {
      await Promise.all([ws.dispose(), others.dispose()]);
    }
  });
});

describe('an upgrade costs its address what a request costs', () => {
  const client = useTestClient(catalogue, { env: { RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' } });
  const base = listening(client);

  it('upgrades that never send connection_init spend the budget: past it, 4429 naming the limit, and REST gets 429', async () => {
    const silent = Array.from({ length: 3 }, () => rawWs(base(), '', { init: false }));
    await Promise.all(silent.map(({ socket }) => new Promise((resolve) => socket.once('open', resolve))));
    const fourth = await rawWs(base(), '', { init: false }).closed;
    expect(fourth.code).toBe(4429);
    expect(fourth.reason).toMatch(/^rate limit exceeded: 3 per minute for anonymous clients/);
    expect((await fetch(`${base()}/products/1/styles`)).status).toBe(429);
    for (const { socket } of silent) socket.terminate();
  });
});
