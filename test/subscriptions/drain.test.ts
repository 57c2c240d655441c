// SIGTERM with subscribers: the real server process closes every WebSocket
// with 1012 (service restart: graphql-ws's client and Apollo's link
// reconnect) and ends every SSE stream without a `complete` event (clients
// reconnect), then exits 0.
import { describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';
import { sseClient, subscribeSse, subscribeWs, wsClient } from '../support/live-clients.ts';

describe('SIGTERM with subscribers', () => {
  const catalogue = useTestCatalogue();

  it('closes WebSockets with 1012, ends SSE streams without complete, and exits 0', async () => {
    const api = await startApiProcess({ DATABASE_URL: catalogue.db.url, CACHE: 'off', SHUTDOWN_IDLE_GRACE_MS: '200' });
    const closes: number[] = [];
    const ws = wsClient(api.url, { onClosed: (event) => closes.push((event as { code: number }).code) });
    const sse = sseClient(api.url);
    try {
      const id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
      const query = 'subscription($ids: [ID!]!) { productChanged(ids: $ids) { id product { name } } }';
      const overWs = subscribeWs(ws, { query, variables: { ids: [id] } });
      const overSse = subscribeSse(sse, { query, variables: { ids: [id] } });
      for (const { received } of [overWs, overSse]) await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
      await api.stop();
      expect(await api.exited).toEqual({ code: 0, signal: null });
      expect(closes).toContain(1012);
      await overSse.received.until((r) => r.error !== undefined || r.completed, 20_000, 'the end of the stream');
      // Ended, not completed: a client with retries left reconnects.
      expect(overSse.received.completed).toBe(false);
    } finally {
      await ws.dispose();
      sse.dispose();
      if (api.running()) await api.stop();
    }
  });
});
