// A revoked key loses its live data within the same few seconds as its plain
// requests get 401 (API_KEY_CACHE_SECONDS): its open WebSocket is closed with
// 4401 and a reason saying so, its SSE stream ends with an error event saying
// so, and a new subscription on a connection opened before is refused; with
// reads open to anonymous callers and with API_KEYS_FOR_READS=required alike.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApiKey, type TestClient, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';

const NAME = `subscription Name($ids: [ID!]!) { productChanged(ids: $ids) { id product { id name } } }`;

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

/** Polls `check` until it holds (each poll a real request); fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}

for (const reads of ['optional', 'required'] as const) {
  describe(`API_KEYS_FOR_READS=${reads}`, () => {
    const client = useTestClient(catalogue, { env: { API_KEYS_FOR_READS: reads, API_KEY_CACHE_SECONDS: '1' } });
    const base = listening(client);

    it('closes its WebSocket with 4401, ends its SSE stream with an error, and refuses a new subscription on an open connection', async () => {
      const [id, other] = (await catalogue.direct.rows<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT 2')).map((r) => String(r.id));
      const key = await createTestApiKey(catalogue.db.url, { name: `revoked (${reads})` });
      const ws = wsClient(base(), { apiKey: key });
      const idle = wsClient(base(), { apiKey: key });
      const sse = sseClient(base(), { apiKey: key });
      try {
        const live = subscribeWs(ws, { query: NAME, variables: { ids: [id] } });
        const stream = subscribeSse(sse, { query: NAME, variables: { ids: [id] } });
        // A second connection, open and acknowledged, that subscribes only after the revocation.
        const first = subscribeWs(idle, { query: NAME, variables: { ids: [other] } });
        for (const { received } of [live, stream, first]) await received.until((r) => r.changes.length > 0, 20_000, 'the current state');
        first.dispose();

        await catalogue.direct.rows('UPDATE api_keys SET revoked_at = now() WHERE key_hash = encode(sha256($1::bytea), \'hex\')', [key]);
        const plain = () => fetch(`${base()}/products/${id}/styles`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status === 401);
        const refusedAfter = await eventually(plain, 5_000, 'a plain request refused with 401');

        // The live data goes within a second or so of the plain requests (one recheck period).
        await live.received.until((r) => r.error !== undefined, 3_000, 'the WebSocket closed');
        const closed = live.received.error as { code: number; reason: string };
        expect([closed.code, closed.reason]).toEqual([4401, expect.stringMatching(/API key .* was revoked/)]);
        await stream.received.until((r) => r.completed || r.error !== undefined, 3_000, 'the stream ended');
        expect(stream.received.results.at(-1)?.errors?.[0]).toMatchObject({ message: expect.stringMatching(/API key .* was revoked/), extensions: { code: 'UNAUTHENTICATED' } });

        const late = subscribeWs(idle, { query: NAME, variables: { ids: [id] } });
        await late.received.until((r) => r.error !== undefined || r.completed || r.changes.length > 0, 3_000, 'an answer');
        expect(late.received.changes).toEqual([]);

        // Nothing more reaches either after a change.
        const counts = [live.received.results.length, stream.received.results.length, late.received.results.length];
        await catalogue.direct.rows(`UPDATE products SET name = name || '.' WHERE id = $1`, [id]);
        const watcher = wsClient(base(), { apiKey: client.apiKey });
        try {
          const check = subscribeWs(watcher, { query: NAME, variables: { ids: [id] } });
          await check.received.until((r) => r.changes.length > 0, 20_000, 'the changed state');
        } finally {
          await watcher.dispose();
        }
        expect([live.received.results.length, stream.received.results.length, late.received.results.length]).toEqual(counts);
        expect(refusedAfter).toBeLessThan(3_000);
      } finally {
        await Promise.all([ws.dispose(), idle.dispose()]);
        sse.dispose();
      }
    });
  });
}
