// Live subscriptions over graphql-ws (docs/subscriptions.md): SUBSCRIBERS
// WebSocket connections to BASE_URL's /graphql, CONNECTIONS_PER_VU per VU,
// each subscribed (ProductStock of k6/operations.graphql) to one product of
// IDS (a comma-separated list; or ID_MIN..ID_MAX) in turn, held HOLD long.
// Run by `npm run bench:live -- --generator k6`, whose writer renames the
// products `live <sequence>` and joins each event's `live_event` sample (its
// time and `seq` tag, in k6's JSON output) with the commit time of that
// sequence number: the same commit-to-client latency as its own clients.
// Standalone (against any deployment), the summary gives connections,
// subscriptions, events and the time to connect and get the first state.
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { WebSocket } from 'k6/websockets';
import { EnvReader } from '../lib/env.ts';
import { operationsByName } from '../lib/operation-text.ts';

const QUERY = operationsByName(open(import.meta.resolve('../operations.graphql'))).get('ProductStock')!;

function readSettings(env: Record<string, string | undefined>) {
  const read = new EnvReader(env);
  const settings = {
    baseUrl: read.httpUrl('BASE_URL', 'http://localhost:4000'),
    subscribers: read.integer('SUBSCRIBERS', 1_000, 1, 1_000_000),
    perVu: read.integer('CONNECTIONS_PER_VU', 200, 1, 10_000),
    hold: read.duration('HOLD', '60s'),
    apiKey: read.raw('API_KEY'),
    ids: [] as string[],
  };
  const list = read.raw('IDS');
  const idMin = read.optionalInteger('ID_MIN', 1, Number.MAX_SAFE_INTEGER);
  const idMax = read.optionalInteger('ID_MAX', 1, Number.MAX_SAFE_INTEGER);
  if (list !== undefined) {
    settings.ids = list.split(',').map((id) => id.trim());
    if (settings.ids.some((id) => !/^\d+$/.test(id))) read.problems.push(`IDS must be product ids separated by commas (got "${list.slice(0, 40)}")`);
  } else if (idMin !== undefined && idMax !== undefined && idMin <= idMax && idMax - idMin < 100_000) {
    for (let id = idMin; id <= idMax; id++) settings.ids.push(String(id));
  } else {
    read.problems.push('IDS (product ids separated by commas) or ID_MIN and ID_MAX (at most 100,000 apart) must say which products to watch');
  }
  read.finish();
  return settings;
}

const settings = readSettings(__ENV);
const vus = Math.ceil(settings.subscribers / settings.perVu);

export const options: Options = {
  scenarios: {
    graphql_live: {
      executor: 'per-vu-iterations', vus, iterations: 1,
      // Connecting takes a while at 20,000: the hold starts once a VU's connections are open.
      maxDuration: `${Math.ceil(settings.hold.ms / 1000) + 600}s`, gracefulStop: '10s',
    },
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(99)'],
};

/** Connections whose first state arrived. */
const subscribed = new Counter('live_subscribed');
/** Every `next` event; those naming a bench write carry its sequence number (`seq` tag). */
const events = new Counter('live_event');
/** Connections refused or closed before the hold ended. */
const failures = new Counter('live_failed');
/** From opening a connection to its first state. */
const firstState = new Trend('live_first_state', true);

interface NextMessage {
  type: string;
  payload?: { data?: { productChanged?: { product?: { name?: string } | null } }; errors?: unknown[] };
}

export default function (): void {
  const first = (__VU - 1) * settings.perVu;
  const count = Math.min(settings.perVu, settings.subscribers - first);
  const url = `${settings.baseUrl.replace(/^http/, 'ws')}/graphql`;
  const sockets: WebSocket[] = [];
  let holding = false;
  // One at a time per VU (VUs connect in parallel): a burst of thousands of handshakes would overflow the listen backlog.
  const open = (index: number) => {
    if (index >= count) {
      holding = true;
      setTimeout(() => { for (const socket of sockets) socket.close(); }, settings.hold.ms);
      return;
    }
    const started = Date.now();
    const id = settings.ids[(first + index) % settings.ids.length]!;
    const socket = new WebSocket(url, null, { headers: { 'Sec-WebSocket-Protocol': 'graphql-transport-ws' } });
    sockets.push(socket);
    let next = false;
    const openNext = () => {
      if (next) return;
      next = true;
      open(index + 1);
    };
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ type: 'connection_init', payload: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {} }));
    });
    let seen = false;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String((event as { data: unknown }).data)) as NextMessage;
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { ids: [id] } } }));
      } else if (message.type === 'next') {
        const match = /^live (\d+)$/.exec(message.payload?.data?.productChanged?.product?.name ?? '');
        events.add(1, match ? { seq: match[1]! } : {});
        if (!seen) {
          seen = true;
          check(message, { 'first state without errors': (m) => m.payload?.errors === undefined });
          subscribed.add(1);
          firstState.add(Date.now() - started);
          openNext();
        }
      } else if (message.type === 'error' || message.type === 'complete') {
        failures.add(1);
        openNext();
      }
    });
    socket.addEventListener('close', () => {
      if (!holding || !seen) failures.add(1);
      openNext();
    });
    socket.addEventListener('error', () => openNext());
  };
  open(0);
}
