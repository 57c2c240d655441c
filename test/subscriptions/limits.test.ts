// Subscriptions get the same keys, access rules, trusted documents, depth and
// cost limits and rate limits as queries, and the protocol's answers when
// refused: graphql-ws close codes (4400, 4401, 4403, 4429) or an `error`
// message for one subscription; HTTP 400/401/403/406/429 before an SSE stream
// starts. Malformed traffic never takes the server down.
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApiKey, type TestClient, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { Received, sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';

const STOCK = `subscription Stock($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name styles { skus { size quantity } } } } }`;

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

/** Opens a raw graphql-transport-ws connection; resolves with how it closed after `exchange`. */
async function rawWs(url: string, exchange: (socket: WebSocket) => void, options: { headers?: Record<string, string> } = {}): Promise<{ code: number; reason: string; messages: unknown[] }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: options.headers });
  const messages: unknown[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { socket.terminate(); reject(new Error(`not closed; messages: ${JSON.stringify(messages)}`)); }, 5_000);
    socket.on('open', () => exchange(socket));
    socket.on('error', () => {});
    socket.on('close', (code, reason) => { clearTimeout(timer); resolve({ code, reason: String(reason), messages }); });
  });
}

async function closeOf(received: Received): Promise<number | undefined> {
  await received.until((r) => r.error !== undefined, 20_000, 'a close');
  return (received.error as { code?: number }).code;
}

describe('with API_KEYS_FOR_READS=required', () => {
  const client = useTestClient(catalogue, { env: { API_KEYS_FOR_READS: 'required' } });
  const base = listening(client);
  let id: string;
  beforeAll(async () => {
    id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
  });

  it('WebSocket: no key, or one that is not valid, is closed with 4401; a key in connection_init or on the upgrade subscribes', async () => {
    for (const apiKey of [undefined, `cat_${'A'.repeat(43)}`, 'not-a-key']) {
      const ws = wsClient(base(), { apiKey });
      const { received } = subscribeWs(ws, { query: STOCK, variables: { ids: [id] } });
      expect(await closeOf(received)).toBe(4401);
      await ws.dispose();
    }
    for (const ws of [wsClient(base(), { apiKey: client.apiKey }), wsClient(base(), { headers: { 'x-api-key': client.apiKey! } })]) {
      const { received, dispose } = subscribeWs(ws, { query: STOCK, variables: { ids: [id] } });
      await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
      dispose();
      await ws.dispose();
    }
  });

  it('two different keys (Authorization and x-api-key): WebSocket closed with 4400, SSE a 400, both naming the headers; the same key twice subscribes', async () => {
    const other = await createTestApiKey(catalogue.db.url, { name: 'the other key' });
    const message = 'Authorization (Bearer) and x-api-key carry different API keys: send one key, in either header or the same in both';
    // On the upgrade, or one in connection_init and the other on the upgrade.
    const upgrade = await rawWs(base(), (socket) => socket.send(JSON.stringify({ type: 'connection_init' })), { headers: { authorization: `Bearer ${client.apiKey}`, 'x-api-key': other } });
    expect([upgrade.code, upgrade.reason]).toEqual([4400, message]);
    const mixed = await rawWs(base(), (socket) => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-Api-Key': other } })), { headers: { authorization: `Bearer ${client.apiKey}` } });
    expect(mixed.code).toBe(4400);
    const query = encodeURIComponent(STOCK);
    const variables = encodeURIComponent(JSON.stringify({ ids: [id] }));
    const sse = await fetch(`${base()}/graphql/stream?query=${query}&variables=${variables}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${client.apiKey}`, 'x-api-key': other } });
    expect(sse.status).toBe(400);
    expect(await sse.json()).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
    const ws = wsClient(base(), { apiKey: client.apiKey, headers: { 'x-api-key': client.apiKey! } });
    const { received, dispose } = subscribeWs(ws, { query: STOCK, variables: { ids: [id] } });
    await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
    dispose();
    await ws.dispose();
  });

  it('SSE: 401 with WWW-Authenticate before the stream starts; a key streams', async () => {
    const query = encodeURIComponent(STOCK);
    const variables = encodeURIComponent(JSON.stringify({ ids: [id] }));
    const anonymous = await fetch(`${base()}/graphql/stream?query=${query}&variables=${variables}`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await anonymous.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    const bad = await fetch(`${base()}/graphql/stream?query=${query}&variables=${variables}`, { headers: { accept: 'text/event-stream', authorization: `Bearer cat_${'B'.repeat(43)}` } });
    expect(bad.status).toBe(401);
    const sse = sseClient(base(), { apiKey: client.apiKey });
    const { received, dispose } = subscribeSse(sse, { query: STOCK, variables: { ids: [id] } });
    await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
    dispose();
    sse.dispose();
  });
});

describe('limits and malformed traffic', () => {
  const client = useTestClient(catalogue, {
    env: { LIVE_MAX_IDS: '3', LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2', GRAPHQL_MAX_DEPTH: '5', GRAPHQL_MAX_COST: '400', CORS_ORIGINS: 'https://shop.example' },
  });
  const base = listening(client);
  let ids: string[];
  beforeAll(async () => {
    ids = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 5')).map((r) => String(r.id));
  });

  /** The first error message a subscription got. */
  async function refusal(query: string, variables: Record<string, unknown>): Promise<{ message: string; extensions?: Record<string, unknown> }> {
    const ws = wsClient(base(), { apiKey: client.apiKey });
    try {
      const { received } = subscribeWs(ws, { query, variables });
      await received.until((r) => r.error !== undefined, 20_000, 'an error');
      const errors = received.error as { message: string; extensions?: Record<string, unknown> }[];
      expect(Array.isArray(errors), JSON.stringify(received.error)).toBe(true);
      return errors[0]!;
    } finally {
      await ws.dispose();
    }
  }

  it('refuses one subscription with an error naming the limit, leaving the connection open', async () => {
    expect(await refusal(STOCK, { ids: ids.slice(0, 4) })).toMatchObject({ message: 'ids must have at most 3 entries (got 4)', extensions: { code: 'BAD_USER_INPUT', field: 'ids' } });
    expect(await refusal(STOCK, { ids: [] })).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'ids' } });
    expect(await refusal(STOCK, { ids: ['x'] })).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'ids' } });
    expect(await refusal(`subscription { productChanged(ids: ["1"]) { product { related { related { related { id } } } } } }`, {}))
      .toMatchObject({ extensions: { code: 'QUERY_TOO_DEEP' } });
    // A product page's selection is about 160 points: three ids go over 400.
    expect(await refusal(STOCK.replace('name', 'name features { feature value } relatedIds'), { ids: ids.slice(0, 3) })).toMatchObject({ extensions: { code: 'QUERY_TOO_COSTLY' } });
    expect(await refusal('subscription { productChanged(ids: ["1"]) { nope } }', {})).toMatchObject({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(await refusal('subscription {', {})).toMatchObject({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    expect(await refusal('{ product(id: "1") { id } }', {})).toMatchObject({ message: 'only subscriptions are served here; send a query to POST /graphql', extensions: { code: 'BAD_REQUEST' } });
  });

  it('at most LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION at once: one more is refused, the others go on', async () => {
    const ws = wsClient(base(), { apiKey: client.apiKey });
    try {
      const first = subscribeWs(ws, { query: STOCK, variables: { ids: [ids[0]] } });
      const second = subscribeWs(ws, { query: STOCK, variables: { ids: [ids[1]] } });
      for (const { received } of [first, second]) await received.until((r) => r.changes.length > 0, 20_000, 'a state');
      const third = subscribeWs(ws, { query: STOCK, variables: { ids: [ids[2]] } });
      await third.received.until((r) => r.error !== undefined, 20_000, 'a refusal');
      expect((third.received.error as { extensions: { code: string } }[])[0]!.extensions.code).toBe('TOO_MANY_SUBSCRIPTIONS');
      await catalogue.direct.rows(`UPDATE products SET name = 'Still live' WHERE id = $1`, [ids[0]]);
      await first.received.until((r) => r.latest(ids[0]!)?.name === 'Still live', 20_000, 'the change');
      // Once one completes, there is room again.
      second.dispose();
      const fourth = subscribeWs(ws, { query: STOCK, variables: { ids: [ids[2]] } });
      await fourth.received.until((r) => r.changes.length > 0, 20_000, 'a state');
    } finally {
      await ws.dispose();
    }
  });

  it('SSE: the same refusals as HTTP statuses before the stream', async () => {
    const stream = (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) => fetch(`${base()}/graphql/stream`, {
      method: 'POST', body: JSON.stringify({ query, variables }),
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${client.apiKey}`, ...headers },
    });
    const tooMany = await stream(STOCK, { ids: ids.slice(0, 4) });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT', field: 'ids' } }] });
    expect((await stream('subscription {', {})).status).toBe(400);
    expect((await stream(STOCK, { ids: [ids[0]] }, { accept: 'application/json' })).status).toBe(406);
    expect((await stream(STOCK, { ids: [ids[0]] }, { origin: 'https://evil.example' })).status).toBe(403);
    const allowed = await stream(STOCK, { ids: [ids[0]] }, { origin: 'https://shop.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await allowed.body?.cancel();
  });

  it('WebSocket: an Origin CORS_ORIGINS does not list is closed with 4403; malformed traffic with 4400', async () => {
    const evil = await rawWs(base(), () => {}, { headers: { origin: 'https://evil.example' } });
    expect(evil.code).toBe(4403);
    const garbage = await rawWs(base(), (socket) => socket.send('{not json'));
    expect(garbage.code).toBe(4400);
    const unknown = await rawWs(base(), (socket) => { socket.send(JSON.stringify({ type: 'connection_init' })); socket.send(JSON.stringify({ type: 'nonsense' })); });
    expect(unknown.code).toBe(4400);
    const early = await rawWs(base(), (socket) => socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: STOCK } })));
    expect(early.code).toBe(4401);
    const twice = await rawWs(base(), (socket) => { socket.send(JSON.stringify({ type: 'connection_init' })); socket.send(JSON.stringify({ type: 'connection_init' })); });
    expect(twice.code).toBe(4429);
    const binary = await rawWs(base(), (socket) => socket.send(Buffer.from([1, 2, 3])));
    expect(binary.code).toBe(4400);
    const huge = await rawWs(base(), (socket) => socket.send('x'.repeat(100_000)));
    expect(huge.code).toBe(1009);
    // And the server still serves.
    const response = await fetch(`${base()}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(response.status).toBe(200);
  });

  it('an upgrade anywhere but /graphql is a 404', async () => {
    const socket = new WebSocket(`${base().replace(/^http/, 'ws')}/products`, 'graphql-transport-ws');
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });
});

describe('rate limits', () => {
  const client = useTestClient(catalogue, { env: { RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' } });
  const base = listening(client);

  it('connections count against the budget: past it, 4429 on WebSockets and 429 with Retry-After on SSE', async () => {
    const id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
    const codes: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      const ws = wsClient(base());
      const { received } = subscribeWs(ws, { query: 'subscription($ids: [ID!]!) { productChanged(ids: $ids) { id } }', variables: { ids: [id] } });
      await received.until((r) => r.changes.length > 0 || r.error !== undefined, 20_000, 'a state or a close');
      codes.push(received.error === undefined ? 0 : (received.error as { code?: number; extensions?: unknown }).code ?? -1);
      await ws.dispose();
    }
    // A connection costs 1 and this subscription 1: the budget of 3 takes one connection and its subscription, then a connection.
    expect(codes[0]).toBe(0);
    expect(codes.at(-1)).toBe(4429);
    const refused = await fetch(`${base()}/graphql/stream?query=${encodeURIComponent('subscription { productChanged(ids: ["1"]) { id } }')}`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
