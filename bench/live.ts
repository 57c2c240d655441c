// npm run bench:live: live subscriptions at scale (docs/subscriptions.md).
// One API process (production mode, cache off) on DATABASE_URL's catalogue;
// SUBSCRIBERS graphql-ws connections (one subscription each to one of
// PRODUCTS products, ProductStock of k6/operations.graphql), then RATE
// product changes a second for DURATION seconds (an UPDATE of a product's
// name, each naming its sequence number), then SSE_SUBSCRIBERS SSE streams
// and the same again. Prints commit-to-client latency (commit acknowledged
// to the writer, in this process -> event parsed by a subscriber, in a
// client process; both read the system clock), events received and
// expected, the CPU of the API and of the load generator, and the API's
// memory per connection.
//
// The subscribers: --generator node (default), raw graphql-transport-ws
// over `ws` and HTTP SSE streams, spread over --client-processes processes
// (one process's event loop holding 20,000 sockets is part of every
// latency it measures); or --generator k6, k6/scenarios/graphql-live.ts for
// the WebSockets (k6 has no SSE client: the streams stay node's), its
// events joined with the commits through k6's JSON output. --profile DIR
// writes CPU profiles (node --cpu-prof) of the API and the node clients,
// and their event-loop delay, into DIR.
//
// Each process holds one file descriptor per connection: `ulimit -n` must be
// above the subscribers plus what the API needs besides (run it as
// `bash -c 'ulimit -n 20000 && npm run bench:live -- ...'`).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';
import { runCommand, UsageError } from '../src/commands/run.ts';
import { operationsByName } from '../k6/lib/operation-text.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { freePort } from './lib/free-port.ts';
import { freshGet } from './lib/fresh-get.ts';
import { ensureK6, SCENARIO_DIR } from './lib/k6.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';
import { startApi } from './lib/server-process.ts';
import { loadConfig } from '../src/config.ts';

const QUERY = operationsByName(fs.readFileSync(new URL('../k6/operations.graphql', import.meta.url), 'utf8')).get('ProductStock')!;

/** Wall-clock milliseconds with sub-millisecond resolution: comparable between processes (the writer's and the clients'). */
const now = () => performance.timeOrigin + performance.now();

type Transport = 'websocket' | 'sse';

/** The sequence number an event names (the writer's `live <seq>`), or undefined. */
function sequenceOf(name: unknown): number | undefined {
  const match = /^live (\d+)$/.exec(String(name));
  return match ? Number(match[1]) : undefined;
}

// ---------------------------------------------------------------------------
// A client process: opens its connections when told, records (sequence, time)
// of every event naming a write, hands them over when asked.

type ToClient =
  | { type: 'open'; transport: Transport; url: string; ids: number[] }
  | { type: 'measure' }
  | { type: 'collect' }
  | { type: 'close' }
  | { type: 'exit' };

type FromClient =
  | { type: 'opened'; failed: number }
  | { type: 'collected'; sequences: number[]; times: number[]; events: number; loopDelayMs: { p50: number; p99: number; max: number } }
  | { type: 'closed' };

class Recorder {
  sequences: number[] = [];
  times: number[] = [];
  events = 0;
  event(name: unknown): void {
    this.events++;
    const sequence = sequenceOf(name);
    if (sequence === undefined) return;
    this.sequences.push(sequence);
    this.times.push(now());
  }
}

function openWs(url: string, id: number, recorder: Recorder): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { perMessageDeflate: false });
  return new Promise<WebSocket>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { productChanged?: { product?: { name?: string } } } } };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { ids: [String(id)] } } }));
      } else if (message.type === 'next') {
        recorder.event(message.payload?.data?.productChanged?.product?.name);
        resolve(socket);
      }
    });
  });
}

function openSse(url: string, id: number, recorder: Recorder): Promise<http.ClientRequest> {
  const body = JSON.stringify({ query: QUERY, variables: { ids: [String(id)] } });
  const request = http.request(`${url}/graphql/stream`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } });
  return new Promise<http.ClientRequest>((resolve, reject) => {
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
          recorder.event((JSON.parse(data) as { data?: { productChanged?: { product?: { name?: string } } } }).data?.productChanged?.product?.name);
          resolve(request);
        }
      });
    });
    request.end(body);
  });
}

function clientProcess(): void {
  const send = (message: FromClient) => process.send!(message);
  let recorder = new Recorder();
  let clients: (WebSocket | http.ClientRequest)[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  process.on('message', (message: ToClient) => {
    void (async () => {
      if (message.type === 'open') {
        recorder = new Recorder();
        let failed = 0;
        // 250 handshakes at a time: a burst of thousands overflows the API's listen backlog.
        for (let i = 0; i < message.ids.length; i += 250) {
          const opened = await Promise.allSettled(message.ids.slice(i, i + 250).map((id) => (message.transport === 'websocket' ? openWs(message.url, id, recorder) : openSse(message.url, id, recorder))));
          for (const result of opened) {
            if (result.status === 'fulfilled') clients.push(result.value);
            else failed++;
          }
        }
        send({ type: 'opened', failed });
      } else if (message.type === 'measure') {
        // Every client's handlers hold this recorder: what it has so far (the first states) is dropped.
        recorder.sequences = [];
        recorder.times = [];
        recorder.events = 0;
        loop.reset();
        loop.enable();
      } else if (message.type === 'collect') {
        loop.disable();
        // The histogram measures the timer's whole interval: its resolution is taken off.
        const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - 1000) / 100);
        send({ type: 'collected', sequences: recorder.sequences, times: recorder.times, events: recorder.events, loopDelayMs: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) } });
      } else if (message.type === 'close') {
        for (const client of clients) {
          if (client instanceof WebSocket) client.terminate();
          else client.destroy();
        }
        clients = [];
        send({ type: 'closed' });
      } else if (message.type === 'exit') {
        process.disconnect();
      }
    })();
  });
}

// ---------------------------------------------------------------------------
// The bench.

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** File descriptors `pid` holds (a connection is one). */
function openFiles(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** A client process, driven by messages. */
class ClientProcess {
  readonly child: ChildProcess;
  private readonly replies: ((message: FromClient) => void)[] = [];
  constructor(execArgv: string[], env: Record<string, string>) {
    this.child = fork(import.meta.filename, [], { execArgv, env: { ...process.env, ...env, LIVE_BENCH_CLIENT: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: FromClient) => this.replies.shift()?.(message));
  }
  ask<T extends FromClient>(message: ToClient): Promise<T> {
    return new Promise((resolve, reject) => {
      this.replies.push((reply) => resolve(reply as T));
      this.child.send(message, (error) => { if (error) reject(error); });
      this.child.once('exit', () => reject(new Error('a client process exited')));
    });
  }
  tell(message: ToClient): void {
    this.child.send(message);
  }
  async exit(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'exit' } satisfies ToClient);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The subscribers of one transport, however generated: open, measure, collect, close. */
interface Generator {
  /** Process ids, whose CPU is the generator's. */
  pids(): number[];
  open(transport: Transport, ids: number[]): Promise<number>;
  measure(): void;
  /** (sequence, receive time) of every event naming a write since measure(), events in all, the clients' event-loop delay. */
  collect(): Promise<{ sequences: number[]; times: number[]; events: number; loopDelayMs?: { p50: number; p99: number; max: number } }>;
  close(): Promise<void>;
}

function nodeGenerator(url: string, processes: number, profile: string | undefined): Generator {
  const execArgv = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, '--cpu-prof-name=client-${pid}.cpuprofile'] : [];
  const clients = Array.from({ length: processes }, () => new ClientProcess(execArgv, {}));
  return {
    pids: () => clients.map((c) => c.child.pid!),
    async open(transport, ids) {
      const replies = await Promise.all(clients.map((client, i) =>
        client.ask<Extract<FromClient, { type: 'opened' }>>({ type: 'open', transport, url, ids: ids.filter((_, j) => j % processes === i) })));
      return replies.reduce((sum, r) => sum + r.failed, 0);
    },
    measure() {
      for (const client of clients) client.tell({ type: 'measure' });
    },
    async collect() {
      const replies = await Promise.all(clients.map((client) => client.ask<Extract<FromClient, { type: 'collected' }>>({ type: 'collect' })));
      const worst = (pick: (r: (typeof replies)[number]) => number) => Math.max(...replies.map(pick));
      return {
        sequences: replies.flatMap((r) => r.sequences), times: replies.flatMap((r) => r.times), events: replies.reduce((sum, r) => sum + r.events, 0),
        loopDelayMs: { p50: worst((r) => r.loopDelayMs.p50), p99: worst((r) => r.loopDelayMs.p99), max: worst((r) => r.loopDelayMs.max) },
      };
    },
    async close() {
      await Promise.all(clients.map((client) => client.ask({ type: 'close' })));
    },
    ...{ exit: () => Promise.all(clients.map((c) => c.exit())) },
  } as Generator & { exit(): Promise<unknown> };
}

/** k6/scenarios/graphql-live.ts for the WebSockets: its `live_event` samples (time, `seq` tag) from its JSON output. */
function k6Generator(url: string, work: string): Generator {
  const k6 = ensureK6();
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  let measuredFrom = 0;
  const output = path.join(work, 'k6.json');
  let address = '';
  const metric = async (name: string): Promise<number> => {
    try {
      const body = JSON.parse((await freshGet(`http://${address}/v1/metrics/${name}`)).body) as { data?: { attributes?: { sample?: { count?: number } } } };
      return body.data?.attributes?.sample?.count ?? 0;
    } catch {
      return 0;
    }
  };
  return {
    pids: () => (child?.pid ? [child.pid] : []),
    async open(transport, ids) {
      if (transport !== 'websocket') throw new UsageError('k6 has no SSE client: --generator k6 runs the WebSocket subscribers only (SSE uses node clients)');
      address = `127.0.0.1:${await freePort()}`;
      // Its REST API (--address) tells how many have subscribed; its summary (to the ignored stdout) stays on, as without one k6 aggregates no metric for that API.
      child = spawn(k6, ['run', '--quiet', '--no-color', '--no-thresholds', '--address', address, '--out', `json=${output}`, path.join(SCENARIO_DIR, 'graphql-live.ts')], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, BASE_URL: url, SUBSCRIBERS: String(ids.length), IDS: [...new Set(ids)].join(','), HOLD: '3600s', CONNECTIONS_PER_VU: '200' },
      });
      exited = new Promise((resolve) => child!.once('exit', resolve));
      const deadline = Date.now() + 600_000;
      let subscribed = 0;
      let failed = 0;
      while (child.exitCode === null && Date.now() < deadline && subscribed + failed < ids.length) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        [subscribed, failed] = await Promise.all([metric('live_subscribed'), metric('live_failed')]);
      }
      if (child.exitCode !== null) throw new Error(`k6 exited (${child.exitCode}) before its subscribers were open`);
      return ids.length - subscribed;
    },
    measure() {
      measuredFrom = now();
    },
    async collect() {
      // k6 writes its samples as it goes; a second for the last to be flushed, then stop it (SIGINT: it stops its VUs and closes the file).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      child?.kill('SIGINT');
      await exited;
      const sequences: number[] = [];
      const times: number[] = [];
      let events = 0;
      const lines = readline.createInterface({ input: fs.createReadStream(output) });
      for await (const line of lines) {
        if (!line.includes('"live_event"') || !line.includes('"Point"')) continue;
        const sample = JSON.parse(line) as { data: { time: string; tags?: { seq?: string } } };
        const time = nanoTime(sample.data.time);
        if (time < measuredFrom) continue;
        events++;
        if (sample.data.tags?.seq !== undefined) {
          sequences.push(Number(sample.data.tags.seq));
          times.push(time);
        }
      }
      return { sequences, times, events };
    },
    async close() {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await exited;
      fs.rmSync(output, { force: true });
    },
  };
}

/** An RFC 3339 time with nanoseconds (k6's JSON output) as epoch milliseconds with their fraction. */
function nanoTime(text: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!match) return Number.NaN;
  return Date.parse(`${match[1]}${match[3]}`) + Number(`0.${match[2] ?? '0'}`) * 1000;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    subscribers: { type: 'string', default: '19900' }, 'sse-subscribers': { type: 'string', default: '2000' },
    products: { type: 'string', default: '1000' }, rate: { type: 'string', default: '100' }, duration: { type: 'string', default: '30' },
    generator: { type: 'string', default: 'node' }, 'client-processes': { type: 'string', default: '4' }, profile: { type: 'string' },
    save: { type: 'string' },
  } });
  const save = savedName(values.save);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('bench:live needs DATABASE_URL: a loaded catalogue (at least --products products); it renames products');
  if (values.generator !== 'node' && values.generator !== 'k6') throw new UsageError(`--generator must be node or k6 (got ${values.generator})`);
  const subscribers = Number(values.subscribers);
  const sseSubscribers = Number(values['sse-subscribers']);
  const productCount = Number(values.products);
  const rate = Number(values.rate);
  const duration = Number(values.duration);
  const processes = Number(values['client-processes']);
  if (!(processes >= 1)) throw new UsageError('--client-processes must be at least 1');
  const profile = values.profile ? path.resolve(values.profile) : undefined;
  if (profile) fs.mkdirSync(profile, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-live-'));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // Any products of the catalogue: a sample of them spread over its ids.
  const ids = (await db.query<{ id: number }>('SELECT id FROM products ORDER BY id LIMIT $1', [productCount])).rows.map((r) => r.id);
  if (ids.length < productCount) throw new UsageError(`the catalogue has ${ids.length} products, fewer than --products ${productCount}`);
  const catalogueProducts = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM products')).rows[0]!.n);
  const provenance = startProvenance('bench:live', process.argv.slice(2), {
    catalogueProducts, watchedProducts: ids.length, subscribers, sseSubscribers, changesPerSecond: rate, seconds: duration,
    generator: values.generator, clientProcesses: processes,
  });
  const api = await startApi({
    databaseUrl, workers: 1, cache: 'off',
    env: {
      RATE_LIMIT: 'off', HTTP_MAX_CONNECTIONS: String(subscribers + sseSubscribers + 1000), LOG_LEVEL: 'warn', LIVE_SLOW_CONSUMER_MS: '60000',
      // Every subscriber comes from this one address, anonymous: the caps that protect a process from one client are the bench's to lift.
      ...liftedCaps(subscribers + sseSubscribers),
      ...(profile ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profile} --cpu-prof-name=api-\${pid}.cpuprofile --import=${path.join(import.meta.dirname, 'lib/loop-delay.ts')}`, LOOP_DELAY_FILE: path.join(profile, 'api-loop-delay.json') } : {}),
    },
  });
  const pid = (JSON.parse((await freshGet(`${api.url}/healthz`, ADMIN_HEADERS)).body) as { pid: number }).pid;
  const nodeClients = nodeGenerator(api.url, processes, profile) as Generator & { exit(): Promise<unknown> };
  const results: Record<string, unknown>[] = [];
  try {
    for (const transport of ['websocket', 'sse'] as const) {
      const count = transport === 'websocket' ? subscribers : sseSubscribers;
      if (count === 0) continue;
      const generator = transport === 'websocket' && values.generator === 'k6' ? k6Generator(api.url, work) : nodeClients;
      const rssBefore = rssBytes(pid);
      const filesBefore = openFiles(pid);
      const opened = performance.now();
      const failedConnections = await generator.open(transport, Array.from({ length: count }, (_, i) => ids[i % ids.length]!));
      const connectSeconds = (performance.now() - opened) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const rssConnected = rssBytes(pid);
      const filesConnected = openFiles(pid);
      const commits = new Map<number, number>();
      generator.measure();
      const cpu = (pids: number[]) => pids.reduce((sum, p) => sum + cpuSeconds(p), 0);
      const generatorPids = generator.pids();
      const cpuBefore = { api: cpuSeconds(pid), generator: cpu(generatorPids), writer: process.cpuUsage() };
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
      const elapsed = (performance.now() - started) / 1000;
      const apiCpu = cpuSeconds(pid) - cpuBefore.api;
      const generatorCpu = cpu(generatorPids) - cpuBefore.generator;
      const writerUsage = process.cpuUsage(cpuBefore.writer);
      const collected = await generator.collect();
      const latencies: number[] = [];
      collected.sequences.forEach((seq, i) => {
        const committed = commits.get(seq);
        if (committed !== undefined) latencies.push(collected.times[i]! - committed);
      });
      latencies.sort((a, b) => a - b);
      const expected = sequence * (count / ids.length);
      results.push({
        transport, generator: generator === nodeClients ? `node x${processes}` : 'k6', subscribers: count - failedConnections, failedConnections, products: ids.length,
        changes: sequence, failedWrites: failed, changesPerSecond: round1(sequence / duration),
        events: collected.events, expectedEvents: Math.round(expected),
        latencyMs: { p50: round1(percentile(latencies, 50)), p99: round1(percentile(latencies, 99)), max: round1(latencies.at(-1) ?? Number.NaN) },
        apiCpuPercent: round1((apiCpu / elapsed) * 100),
        generatorCpuPercent: round1((generatorCpu / elapsed) * 100),
        writerCpuPercent: round1(((writerUsage.user + writerUsage.system) / 1e6 / elapsed) * 100),
        ...(collected.loopDelayMs ? { clientLoopDelayMs: collected.loopDelayMs } : {}),
        apiRssMb: Math.round(rssConnected / 1048576),
        apiOpenFiles: { before: filesBefore, connected: filesConnected },
        kbPerConnection: round1((rssConnected - rssBefore) / count / 1024),
        connectSeconds: round1(connectSeconds),
      });
      console.log(JSON.stringify(results.at(-1)));
      await generator.close();
      // Until the API has let go of them (closing thousands of connections is work of its own, which the next transport's figures must not carry).
      for (const deadline = Date.now() + 60_000; openFiles(pid) > filesBefore + 50 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 200));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await nodeClients.exit();
    await api.stop();
    await db.end();
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`load average: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  // Like npm run bench's and bench:etl's: a results file naming the commit, machine, date, data and command.
  const document = { provenance: endProvenance(provenance), results };
  const dir = path.join(loadConfig().dataDir, 'bench', 'live');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${provenance.startedAt.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`results in ${path.relative(process.cwd(), file)}`);
  if (save) console.log(`results published as ${path.relative(process.cwd(), publish(save, document))}`);
  if (profile) console.log(`CPU profiles and event-loop delay in ${profile}`);
}

/** The live caps (docs/subscriptions.md "Limits and access") raised to hold `connections` connections, each a subscription of one id, from one address. */
function liftedCaps(connections: number): Record<string, string> {
  const all = String(connections);
  return {
    LIVE_MAX_IDS: '1',
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: all, HTTP_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: all, LIVE_MAX_CONNECTIONS: all, LIVE_MAX_CONNECTIONS_PER_ADDRESS: all, LIVE_MAX_PENDING_PER_ADDRESS: all,
    LIVE_MAX_SUBSCRIPTIONS: all, LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: all, LIVE_MAX_WATCHED_IDS: all, LIVE_MAX_WATCHED_IDS_PER_CLIENT: all,
  };
}

if (process.env.LIVE_BENCH_CLIENT === '1') clientProcess();
else runCommand(main);
