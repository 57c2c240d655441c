// npm run bench:live: live subscriptions at scale (docs/subscriptions.md).
// One API process (production mode, cache off) on DATABASE_URL's catalogue;
// SUBSCRIBERS graphql-ws connections (raw graphql-transport-ws over `ws`, one
// subscription each to one of PRODUCTS products, ProductStock of
// k6/operations.graphql), then RATE product changes a second for DURATION
// seconds (an UPDATE of a product's name, each naming its sequence number),
// then SSE_SUBSCRIBERS SSE streams and the same again. Prints commit-to-client
// latency (commit acknowledged to the writer -> event parsed by a
// subscriber, both in this process: the clients' own event-loop delay
// counts), events received and missed, the API's CPU and its memory per
// connection. Needs `ulimit -n` above the subscribers (run it as
// `bash -c 'ulimit -n 65536 && npm run bench:live'`).
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { runCommand, UsageError } from '../src/commands/run.ts';
import { operationsByName } from '../k6/lib/operation-text.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { freshGet } from './lib/fresh-get.ts';
import { startApi } from './lib/server-process.ts';

const QUERY = operationsByName(fs.readFileSync(new URL('../k6/operations.graphql', import.meta.url), 'utf8')).get('ProductStock')!;

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const now = () => performance.timeOrigin + performance.now();

/** What every subscriber reports: latencies of the events naming a committed change. */
class Latencies {
  readonly values: number[] = [];
  received = 0;
  private readonly commits: Map<number, number>;
  constructor(commits: Map<number, number>) {
    this.commits = commits;
  }
  event(name: unknown): void {
    this.received++;
    const match = /^live (\d+)$/.exec(String(name));
    if (!match) return;
    const committed = this.commits.get(Number(match[1]));
    if (committed !== undefined) this.values.push(now() - committed);
  }
}

async function openWs(url: string, id: number, latencies: Latencies): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { productChanged?: { product?: { name?: string } } } } };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { ids: [String(id)] } } }));
      } else if (message.type === 'next') {
        latencies.event(message.payload?.data?.productChanged?.product?.name);
        resolve();
      }
    });
  });
  return socket;
}

async function openSse(url: string, id: number, latencies: Latencies): Promise<http.ClientRequest> {
  const body = JSON.stringify({ query: QUERY, variables: { ids: [String(id)] } });
  const request = http.request(`${url}/graphql/stream`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } });
  await new Promise<void>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200) return reject(new Error(`SSE ${response.statusCode}`));
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (!data || !event.includes('event: next')) continue;
          latencies.event((JSON.parse(data) as { data?: { productChanged?: { product?: { name?: string } } } }).data?.productChanged?.product?.name);
          resolve();
        }
      });
    });
    request.end(body);
  });
  return request;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    subscribers: { type: 'string', default: '20000' }, 'sse-subscribers': { type: 'string', default: '2000' },
    products: { type: 'string', default: '1000' }, rate: { type: 'string', default: '100' }, duration: { type: 'string', default: '30' },
  } });
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('bench:live needs DATABASE_URL: a loaded catalogue (at least --products products); it renames products');
  const subscribers = Number(values.subscribers);
  const sseSubscribers = Number(values['sse-subscribers']);
  const productCount = Number(values.products);
  const rate = Number(values.rate);
  const duration = Number(values.duration);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const ids = (await db.query<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT $1', [productCount])).rows.map((r) => r.id);
  if (ids.length < productCount) throw new UsageError(`the catalogue has ${ids.length} products, fewer than --products ${productCount}`);
  const api = await startApi({
    databaseUrl, workers: 1, cache: 'off',
    env: { RATE_LIMIT: 'off', HTTP_MAX_CONNECTIONS: String(subscribers + sseSubscribers + 1000), LOG_LEVEL: 'warn', LIVE_SLOW_CONSUMER_MS: '60000' },
  });
  const pid = (JSON.parse((await freshGet(`${api.url}/healthz`, ADMIN_HEADERS)).body) as { pid: number }).pid;
  const results: Record<string, unknown>[] = [];
  try {
    for (const transport of ['websocket', 'sse'] as const) {
      const count = transport === 'websocket' ? subscribers : sseSubscribers;
      if (count === 0) continue;
      const commits = new Map<number, number>();
      const latencies = new Latencies(commits);
      const rssBefore = rssBytes(pid);
      const opened = performance.now();
      const clients: (WebSocket | http.ClientRequest)[] = [];
      for (let i = 0; i < count; i += 500) {
        clients.push(...await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) =>
          transport === 'websocket' ? openWs(api.url, ids[(i + j) % ids.length]!, latencies) : openSse(api.url, ids[(i + j) % ids.length]!, latencies))));
      }
      const connectSeconds = (performance.now() - opened) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const rssConnected = rssBytes(pid);
      latencies.values.length = 0;
      latencies.received = 0;
      const cpuBefore = cpuSeconds(pid);
      const started = performance.now();
      let sequence = 0;
      let failed = 0;
      const writes: Promise<void>[] = [];
      const interval = 1000 / rate;
      while (performance.now() - started < duration * 1000) {
        const due = started + sequence * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const seq = ++sequence;
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        writes.push(db.query('UPDATE products SET name = $2 WHERE id = $1', [id, `live ${seq}`]).then(() => { commits.set(seq, now()); }, () => { failed++; }));
      }
      await Promise.all(writes);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const cpu = cpuSeconds(pid) - cpuBefore;
      const elapsed = (performance.now() - started) / 1000;
      const sorted = [...latencies.values].sort((a, b) => a - b);
      const expected = sequence * (count / ids.length);
      results.push({
        transport, subscribers: count, products: ids.length, changes: sequence, failedWrites: failed,
        changesPerSecond: Math.round((sequence / duration) * 10) / 10,
        events: latencies.received, expectedEvents: Math.round(expected),
        latencyMs: { p50: Math.round(percentile(sorted, 50) * 10) / 10, p99: Math.round(percentile(sorted, 99) * 10) / 10, max: Math.round((sorted.at(-1) ?? Number.NaN) * 10) / 10 },
        apiCpuPercent: Math.round((cpu / elapsed) * 1000) / 10,
        apiRssMb: Math.round(rssConnected / 1048576),
        kbPerConnection: Math.round((rssConnected - rssBefore) / count / 102.4) / 10,
        connectSeconds: Math.round(connectSeconds * 10) / 10,
      });
      console.log(JSON.stringify(results.at(-1)));
      for (const client of clients) {
        if (client instanceof WebSocket) client.terminate();
        else client.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await api.stop();
    await db.end();
  }
  console.log(`load average: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}

runCommand(main);
