// A measurement, run on demand (MEASURE_ONE_CLIENT=1; skipped otherwise):
// a normal client's p99 against a production API process, idle, then while
// one address has opened FLOOD WebSockets and holds what it got, with the
// default caps and with every cap lifted (what the process did before them).
// The flood keeps PENDING WebSockets awaiting their answer at a time (each
// sends connection_init), and opens a refused one again after RETRY_MS if
// set (a client churning connections). The process has HTTP_MAX_CONNECTIONS
// = FLOOD - 500, so without caps the flood can take all of it. The normal
// client is another loopback address (127.0.0.2), one request at a time on a
// kept-alive connection: REST styles and a GraphQL product page, alternately.
//   MEASURE_ONE_CLIENT=1 npx vitest run test/subscriptions/one-client-p99.test.ts
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startApiProcess } from '../support/api-process.ts';
import { useTestCatalogue } from '../support/catalogue-app.ts';

const FLOOD = Number(process.env.FLOOD ?? 2_500);
/** How long a refused WebSocket waits before it is opened again; unset: never (the flood only holds what it got). */
const RETRY_MS = process.env.RETRY_MS === undefined ? undefined : Number(process.env.RETRY_MS);
const REQUESTS = Number(process.env.REQUESTS ?? 600);
const NORMAL = '127.0.0.2';
/** WebSockets the flood keeps awaiting their answer at once. */
const PENDING = Number(process.env.PENDING ?? 40);

/** Every cap of issue 45 lifted: the process as it was before them. */
const NO_CAPS = Object.fromEntries(['HTTP_MAX_CONNECTIONS_PER_ADDRESS', 'HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND', 'LIVE_MAX_CONNECTIONS', 'LIVE_MAX_CONNECTIONS_PER_ADDRESS', 'LIVE_MAX_PENDING_PER_ADDRESS']
  .map((name) => [name, String(FLOOD - 500)]));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** REQUESTS requests one at a time from NORMAL: p50 and p99 in ms, and how many failed. */
async function normalClient(port: number, id: number): Promise<{ p50: number; p99: number; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: NORMAL });
  const times: number[] = [];
  let failed = 0;
  const body = JSON.stringify({ query: `{ product(id: "${id}") { id name defaultPrice styles { id name salePrice skus { size quantity } } } }` });
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const status = await new Promise<number>((resolve) => {
      const graphql = i % 2 === 1;
      const request = http.request({ host: '127.0.0.1', port, agent, method: graphql ? 'POST' : 'GET', path: graphql ? '/graphql' : `/products/${id}/styles`, headers: graphql ? { 'content-type': 'application/json' } : {}, timeout: 10_000 }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(0));
      request.end(graphql ? body : undefined);
    });
    if (status !== 200) failed++;
    times.push(performance.now() - started);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 50) * 100) / 100, p99: Math.round(percentile(times, 99) * 100) / 100, failed };
}

/** One address opens FLOOD WebSockets (retrying the refused ones after RETRY_MS, if set) until `stop`, which says how many it held. */
function flood(port: number): { stop: () => number; sockets: Set<WebSocket> } {
  const sockets = new Set<WebSocket>();
  let stopped = false;
  let held = 0;
  let attempts = 0;
  const open = () => {
    if (stopped) return;
    attempts++;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    sockets.add(socket);
    let acked = false;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', () => {
      if (acked) return;
      acked = true;
      held++;
      settled();
    });
    let done = false;
    // At most PENDING awaiting their answer at once (below LIVE_MAX_PENDING_PER_ADDRESS), the next opened as one is answered.
    const settled = () => {
      if (done) return;
      done = true;
      if (attempts < FLOOD) open();
    };
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      settled();
      if (acked) held--;
      if (RETRY_MS !== undefined) setTimeout(open, RETRY_MS);
    });
  };
  for (let i = 0; i < Math.min(PENDING, FLOOD); i++) open();
  return { sockets, stop: () => { stopped = true; for (const socket of sockets) socket.terminate(); return held; } };
}

describe.skipIf(!process.env.MEASURE_ONE_CLIENT)('a normal client while one address floods a process with WebSockets', () => {
  const catalogue = useTestCatalogue();

  for (const [name, env] of [['default caps', {}], ['caps lifted (before)', NO_CAPS]] as const) {
    it(name, async () => {
      const id = (await catalogue.direct.one<{ id: number }>('SELECT min(id) AS id FROM products')).id;
      const server = await startApiProcess({ DATABASE_URL: catalogue.db.url, CACHE: 'off', RATE_LIMIT: 'off', HTTP_MAX_CONNECTIONS: String(FLOOD - 500), ...env });
      try {
        await normalClient(server.port, id); // warm-up
        const idle = await normalClient(server.port, id);
        const flooding = flood(server.port);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const during = await normalClient(server.port, id);
        const held = flooding.stop();
        console.log(JSON.stringify({ case: name, flood: FLOOD, retryMs: RETRY_MS ?? null, held, idle, during }));
        expect(idle.failed).toBe(0);
      } finally {
        await server.stop();
      }
    }, 300_000);
  }
});
