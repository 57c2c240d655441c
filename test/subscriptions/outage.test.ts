// The change feed's LISTEN connection lost (killed here, as a Postgres
// restart or a network cut does): subscribers are kept and told
// (LIVE_UPDATES_PAUSED), and once the feed listens again each gets its
// product's current state, including a write committed while nothing listened.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { subscribeWs, wsClient } from '../support/live-clients.ts';

describe('the change feed interrupted', () => {
  const catalogue = useTestCatalogue();
  const client = useTestClient(catalogue);
  let base: string;
  beforeAll(async () => {
    await client.app.listen({ host: '127.0.0.1', port: 0 });
    const address = client.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  it('tells subscribers, keeps them, and sends the current state when it is back', async () => {
    const id = String((await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id);
    const ws = wsClient(base, { apiKey: client.apiKey });
    const { received, dispose } = subscribeWs(ws, { query: 'subscription($ids: [ID!]!) { productChanged(ids: $ids) { id product { name } } }', variables: { ids: [id] } });
    try {
      await received.until((r) => r.latest(id) !== undefined, 20_000, 'the current state');
      // Kill the LISTEN connection and write at once, before it can be back.
      await catalogue.direct.rows(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`catalogue-changes:${process.pid}`]);
      await catalogue.direct.rows(`UPDATE products SET name = 'Written in the gap' WHERE id = $1`, [id]);
      await received.until((r) => r.results.some((result) => result.errors?.[0]?.extensions?.code === 'LIVE_UPDATES_PAUSED'), 20_000, 'the notice');
      await received.until((r) => r.latest(id)?.name === 'Written in the gap', 20_000, 'the state after the gap');
      expect(received.error).toBeUndefined();
      expect(received.completed).toBe(false);
    } finally {
      dispose();
      await ws.dispose();
    }
  });
});
