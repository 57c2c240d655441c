// A normal client's product-page latency alone, then while one other address
// floods the process with live connections it reopens as soon as they end
// (issue 45, item 2: "a normal client of the same process served meanwhile").
// Against a running API on loopback, started with RATE_LIMIT=off (else the
// flood spends its address's budget and is refused by that instead, which
// this measures too if you leave it on):
//
//   npm run bench:flood -- --url http://127.0.0.1:4000 [--seconds 10] [--rounds 3] [--kind ws|sse|mix] [--concurrency 200] [--rate 0] [--settle 3] [--max-id 50000] [--save <name>]
//
// --save <name> keeps the run in docs/performance/<name>.json, one entry per
// kind, concurrency and rate (a new run replaces the entry of the same three),
// each with its provenance; docs/operations.md's flood table is rendered from
// `reconnect-flood` (scripts/render-performance.ts).
//
// The normal client is 127.0.0.2: k6's ProductDetailPage of random ids, one
// at a time on one kept-alive connection. The flood is 127.0.0.1, on a worker
// thread of its own: `--concurrency` raw sockets at once, each a WebSocket
// upgrade of /graphql (never sending connection_init: what costs a client
// least to open) or an SSE stream of /graphql/stream; whatever the server
// accepts is held until the server ends it, whatever it refuses (an HTTP
// status, a close frame, a reset) is dropped and opened again at once, at
// most `--rate` openings a second (0: as fast as they come back). Raw
// sockets, not a WebSocket library: the flood's own CPU, on the same cores,
// is kept to the least a real attacker elsewhere would cost this host.
// Each round is the client alone for `--seconds`, then beside the flood for
// as long, after the flood has run `--settle` seconds (what the caps let it
// hold, opened first, is a bounded one-off cost; then only refusals churn); the rounds alternate so a noisy host weighs on both alike. Prints
// per round p50/p99 and the flood's attempts a second and outcomes, then the
// medians and their ratio. Every phase is bounded in time; only loopback.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { median } from '../bench/lib/median.ts';
import { endProvenance, publishEntry, savedName, startProvenance } from '../bench/lib/provenance.ts';
import { operationsByName } from '../k6/lib/operation-text.ts';

const args = isMainThread ? process.argv.slice(2) : (workerData as { args: string[] }).args;
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const base = new URL(option('url', 'http://127.0.0.1:4000'));
if (!['127.0.0.1', 'localhost'].includes(base.hostname)) throw new Error(`--url must be on loopback 127.0.0.1 (got ${base.hostname})`);
const port = Number(base.port);
const seconds = Math.min(20, Number(option('seconds', '10')));
const rounds = Math.min(5, Number(option('rounds', '3')));
const kind = option('kind', 'mix');
const concurrency = Math.min(2_000, Number(option('concurrency', '200')));
const rate = Number(option('rate', '0'));
const maxId = Number(option('max-id', '50000'));
/** Seconds the flood runs before the client's time is taken: what the caps let it hold is opened first (a bounded, one-off cost), then only refusals churn. */
const settle = Math.min(10, Number(option('settle', '3')));
const save = savedName(option('save', ''));
const NORMAL = '127.0.0.2';
const FLOODER = '127.0.0.1';

const WS_REQUEST = `GET /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`;
const SSE_QUERY = encodeURIComponent('subscription { productChanged(ids: ["1"]) { id } }');
const SSE_REQUEST = `GET /graphql/stream?query=${SSE_QUERY} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`;

interface FloodCounts {
  attempts: number;
  /** Upgrades answered 101 with nothing after (held), streams answered 200. */
  accepted: number;
  /** Refused as it opened, before any request was read (HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND, HTTP_MAX_CONNECTIONS_PER_ADDRESS). */
  refusedAtAccept: number;
  /** Refused past a live cap: an HTTP status, or a 101 followed at once by a close frame. */
  refused: number;
  /** Closed or reset before any answer. */
  dropped: number;
}

/** The flood, until `until` (Date.now() time): counts of what it got. */
async function flood(until: number): Promise<FloodCounts> {
  const counts: FloodCounts = { attempts: 0, accepted: 0, refusedAtAccept: 0, refused: 0, dropped: 0 };
  const sockets = new Set<net.Socket>();
  // At most `rate` openings a second: a token every 1/rate s, a burst of at most `concurrency`.
  let tokens = concurrency;
  let last = performance.now();
  const take = (): boolean => {
    if (rate <= 0) return true;
    const now = performance.now();
    tokens = Math.min(concurrency, tokens + ((now - last) * rate) / 1000);
    last = now;
    if (tokens < 1) return false;
    tokens--;
    return true;
  };
  let n = 0;
  const open = () => {
    if (Date.now() >= until) return;
    if (!take()) return void setTimeout(open, Math.max(1, 1000 / rate));
    counts.attempts++;
    const ws = kind === 'ws' || (kind === 'mix' && n++ % 2 === 0);
    const socket = net.connect({ host: FLOODER, port, localAddress: FLOODER });
    sockets.add(socket);
    let answered = false;
    socket.on('connect', () => socket.write(ws ? WS_REQUEST : SSE_REQUEST));
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      answered = true;
      const text = chunk.toString('latin1');
      const held = ws ? text.startsWith('HTTP/1.1 101') && text.endsWith('\r\n\r\n') : text.startsWith('HTTP/1.1 200');
      if (held) counts.accepted++;
      else {
        if (text.includes('(HTTP_')) counts.refusedAtAccept++;
        else counts.refused++;
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!answered) counts.dropped++;
      sockets.delete(socket);
      setImmediate(open);
    });
  };
  for (let i = 0; i < concurrency; i++) open();
  await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
  for (const socket of sockets) socket.destroy();
  return counts;
}

const OPERATIONS = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../k6/operations.graphql'), 'utf8'));
const productPage = () => JSON.stringify({ query: OPERATIONS.get('ProductDetailPage'), variables: { id: String(1 + Math.floor(Math.random() * maxId)) }, operationName: 'ProductDetailPage' });

/** Product pages one at a time from NORMAL for `ms`: each one's time, and how many failed. */
async function normalClient(ms: number): Promise<{ times: number[]; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: NORMAL });
  const times: number[] = [];
  let failed = 0;
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const payload = productPage();
    const started = performance.now();
    const status = await new Promise<number>((resolve) => {
      const request = http.request({ host: FLOODER, port, path: '/graphql', method: 'POST', agent, timeout: 10_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(0));
      request.end(payload);
    });
    times.push(performance.now() - started);
    if (status !== 200) failed++;
  }
  agent.destroy();
  return { times: times.sort((a, b) => a - b), failed };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** One round as the results file keeps it: the normal client alone and beside the flood, and what the flood got. */
interface FloodRound {
  idle: { requests: number; failed: number; p99: number };
  flood: { requests: number; failed: number; p99: number };
  attemptsPerSecond: number;
  accepted: number;
}

if (!isMainThread) {
  parentPort!.postMessage(await flood((workerData as { until: number }).until));
} else {
  const provenance = startProvenance('bench:flood', args, { kind, concurrency, rate, seconds, settle, rounds, maxId });
  const results: FloodRound[] = [];
  await normalClient(1_000); // warm-up: the document prepared, the connection open
  for (let round = 1; round <= rounds; round++) {
    const idle = await normalClient(seconds * 1000);
    const until = Date.now() + (settle + seconds) * 1000;
    const worker = new Worker(new URL(import.meta.url), { workerData: { until, args } });
    const counts = new Promise<FloodCounts>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, settle * 1000));
    const during = await normalClient(until - Date.now());
    const flooded = await counts;
    await worker.terminate();
    // The flood's sockets end with it: let the server close them before the next idle phase.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    results.push({
      idle: { requests: idle.times.length, failed: idle.failed, p99: percentile(idle.times, 99) },
      flood: { requests: during.times.length, failed: during.failed, p99: percentile(during.times, 99) },
      attemptsPerSecond: Math.round(flooded.attempts / (settle + seconds)), accepted: flooded.accepted,
    });
    const line = (name: string, r: { times: number[]; failed: number }) =>
      `${name} ${r.times.length} requests (${r.failed} failed), p50 ${percentile(r.times, 50).toFixed(1)} ms, p99 ${percentile(r.times, 99).toFixed(1)} ms`;
    console.log(`round ${round}: ${line('idle', idle)} | ${line('flood', during)} | flood (${kind}, ${concurrency} at once${rate > 0 ? `, at most ${rate}/s` : ''}): ${results.at(-1)!.attemptsPerSecond} attempts/s, accepted ${flooded.accepted}, refused as opened ${flooded.refusedAtAccept}, past a live cap ${flooded.refused}, dropped ${flooded.dropped}`);
  }
  const [idle, during] = [median(results.map((r) => r.idle.p99)), median(results.map((r) => r.flood.p99))];
  console.log(`median p99: idle ${idle.toFixed(1)} ms, flood ${during.toFixed(1)} ms: ${(during / idle).toFixed(2)}x`);
  if (save) {
    const entry = { kind, concurrency, rate, provenance: endProvenance(provenance), medians: { idleP99: idle, floodP99: during, ratio: during / idle }, rounds: results };
    console.log(`saved to ${publishEntry(save, entry, (kept) => kept.kind === kind && kept.concurrency === concurrency && kept.rate === rate)}`);
  }
}
