// Connections cannot be held: a real server process (`node src/main.ts`) with
// short timeouts, and raw TCP clients (node:net) that send a request's
// headers one byte at a time (slowloris), declare a body and stop sending
// it, or send nothing at all. Each gets a 408 and is closed within its
// timeout, 500 at once while a normal client keeps its p99, and a slow client
// that stays within the limits is still served. A process takes at most
// HTTP_MAX_CONNECTIONS connections.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestCatalogue } from '../support/catalogue-app.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';

const catalogue = useTestCatalogue();

const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 3_000;
/** Checked every 200 ms (a tenth of the shorter timeout), and a loaded 2-core machine. */
const SLACK_MS = 1_500;

type Kind = 'headers' | 'body' | 'idle';

interface Held {
  kind: Kind;
  /** From connected to closed by the server; undefined if it was still open when the test gave up. */
  closedAfterMs: number | undefined;
  /** The status line the server wrote before closing, if any. */
  statusLine: string | undefined;
}

/**
 * One raw connection that holds on: `headers` sends a GET's headers one byte
 * every `byteEveryMs` and never finishes them; `body` sends a POST declaring
 * `Content-Length: 100`, 12 bytes of it, then nothing; `idle` sends nothing.
 */
function holdConnection(port: number, kind: Kind, options: { byteEveryMs?: number; giveUpMs?: number } = {}): Promise<Held> {
  const byteEveryMs = options.byteEveryMs ?? 500;
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let connectedAt = 0;
    let trickle: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(undefined), options.giveUpMs ?? 15_000);
    const finish = (closedAfterMs: number | undefined) => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      socket.destroy();
      const head = Buffer.concat(received).toString('latin1');
      resolve({ kind, closedAfterMs, statusLine: head === '' ? undefined : head.split('\r\n')[0] });
    };
    socket.on('connect', () => {
      connectedAt = performance.now();
      if (kind === 'headers') {
        socket.write('GET /products/1 HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
        trickle = setInterval(() => socket.write('a'), byteEveryMs);
      } else if (kind === 'body') {
        socket.write('POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":"{ ');
      }
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => finish(connectedAt === 0 ? undefined : performance.now() - connectedAt));
  });
}

/** A keep-alive client sending GET /products/:id one after another for `ms`: each request's latency. */
async function normalClient(url: string, ms: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = performance.now() + ms;
  try {
    for (let i = 0; performance.now() < end; i++) {
      const started = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        http.get(`${url}/products/${1 + (i % 20)}`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        }).on('error', reject);
      });
      expect(status).toBe(200);
      latencies.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

describe('slow and idle connections', () => {
  let server: ApiProcess;
  let port: number;
  beforeAll(async () => {
    server = await startApiProcess({
      DATABASE_URL: catalogue.db.url, CACHE: 'on', RATE_LIMIT: 'off',
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('answers 408 and closes a connection whose headers never finish (slowloris)', async () => {
    const held = await holdConnection(port, 'headers');
    expect(held.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(held.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(held.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('answers 408 and closes a connection whose body never finishes', async () => {
    const held = await holdConnection(port, 'body');
    expect(held.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(held.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(held.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('answers 408 and closes a connection that never sends anything', async () => {
    const held = await holdConnection(port, 'idle');
    expect(held.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(held.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(held.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
  });

  it('serves a slow client that stays within the limits: headers at once, the body over longer than the headers timeout', async () => {
    const body = Buffer.from(JSON.stringify({ query: '{ product(id: 1) { id name } }' }));
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${server.url}/graphql`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      request.on('error', reject);
      request.flushHeaders();
      // Five pieces over 2.5 s: past the headers timeout, within the request timeout.
      const pieces = 5;
      const size = Math.ceil(body.length / pieces);
      let sent = 0;
      const timer = setInterval(() => {
        request.write(body.subarray(sent * size, (sent + 1) * size));
        if (++sent === pieces) {
          clearInterval(timer);
          request.end();
        }
      }, 500);
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { product: { id: '1', name: expect.any(String) } } });
  });

  it('closes 500 slow connections within the timeouts while a normal client keeps its p99', async () => {
    const baseline = await normalClient(server.url, 4_000);
    const kinds: Kind[] = Array.from({ length: 500 }, (_, i) => (i % 10 === 0 ? 'idle' : i % 2 === 0 ? 'headers' : 'body'));
    const started = performance.now();
    const held = Promise.all(kinds.map((kind) => holdConnection(port, kind, { byteEveryMs: 1_000 })));
    const loaded = await normalClient(server.url, 4_000);
    const results = await held;
    const allClosedAfterMs = performance.now() - started;

    const limit = (kind: Kind) => (kind === 'body' ? REQUEST_TIMEOUT_MS : HEADERS_TIMEOUT_MS) + SLACK_MS;
    const late = results.filter((r) => r.closedAfterMs === undefined || r.closedAfterMs >= limit(r.kind));
    const without408 = results.filter((r) => r.statusLine !== 'HTTP/1.1 408 Request Timeout');
    const summary = {
      slowConnections: results.length,
      closed: results.filter((r) => r.closedAfterMs !== undefined).length,
      slowestCloseMs: { headers: 0, body: 0, idle: 0 } as Record<Kind, number>,
      allClosedAfterMs: Math.round(allClosedAfterMs),
      answered408: results.filter((r) => r.statusLine === 'HTTP/1.1 408 Request Timeout').length,
      baseline: { requests: baseline.length, p50: percentile(baseline, 50).toFixed(2), p99: percentile(baseline, 99).toFixed(2) },
      withSlowConnections: { requests: loaded.length, p50: percentile(loaded, 50).toFixed(2), p99: percentile(loaded, 99).toFixed(2) },
    };
    for (const r of results) summary.slowestCloseMs[r.kind] = Math.max(summary.slowestCloseMs[r.kind], Math.round(r.closedAfterMs ?? Infinity));
    console.log(`500 slow connections: ${JSON.stringify(summary)}`);

    expect(late.map((r) => `${r.kind}: ${r.closedAfterMs === undefined ? 'still open' : `closed after ${Math.round(r.closedAfterMs)} ms`}`)).toEqual([]);
    expect(without408.map((r) => `${r.kind}: ${r.statusLine ?? 'nothing'}`)).toEqual([]);
    // Generous for a shared 2-core machine: the slow connections may cost the
    // normal client some milliseconds, not hold it up.
    expect(percentile(loaded, 99)).toBeLessThan(Math.max(3 * percentile(baseline, 99), percentile(baseline, 99) + 100));
    expect(percentile(loaded, 99)).toBeLessThan(250);
  });
});

/** A raw connection that sends nothing; `closed` resolves when the server closes it, with what it wrote first. */
function openConnection(port: number): Promise<{ socket: net.Socket; closed: Promise<{ afterMs: number; bytes: number }> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => { bytes += chunk.length; });
    socket.once('error', reject);
    socket.once('connect', () => {
      const connectedAt = performance.now();
      socket.removeListener('error', reject);
      socket.on('error', () => {});
      resolve({ socket, closed: new Promise((closed) => socket.once('close', () => closed({ afterMs: performance.now() - connectedAt, bytes }))) });
    });
  });
}

describe('HTTP_MAX_CONNECTIONS', () => {
  let server: ApiProcess | undefined;
  afterAll(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('closes a connection beyond the cap at once, and serves again once others have gone', async () => {
    // A short keep-alive timeout closes the connection startApiProcess polled /healthz on.
    server = await startApiProcess({ DATABASE_URL: catalogue.db.url, HTTP_MAX_CONNECTIONS: '50', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' });
    const port = Number(new URL(server.url).port);
    // Node closes an idle kept-alive connection a second after its keep-alive timeout.
    await new Promise((r) => setTimeout(r, 2_500));
    const held = [];
    for (let i = 0; i < 50; i++) held.push(await openConnection(port));
    const extra = await openConnection(port);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    // The 51st is closed without an answer, at once.
    const refused = await extra.closed;
    expect(refused.bytes).toBe(0);
    expect(refused.afterMs).toBeLessThan(1_000);
    // The first 50 are still open (they have until the headers timeout, 10 s, to send a request).
    const stillOpen = await Promise.race([
      Promise.any(held.map((c) => c.closed)).then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), 300)),
    ]);
    expect(stillOpen).toBe(true);
    // A few go away: a normal client is served again.
    for (const connection of held.slice(0, 5)) connection.socket.destroy();
    await Promise.all(held.slice(0, 5).map((c) => c.closed));
    await new Promise((r) => setTimeout(r, 100));
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${server!.url}/healthz`, { agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(200);
    for (const connection of held) connection.socket.destroy();
  });
});
