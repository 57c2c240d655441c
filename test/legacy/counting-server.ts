// A stand-in for the legacy service that records what arrives: when (on the
// same monotonic clock the client uses), what, and how many were in flight.
// "In flight" runs from the request event to the moment the answer is handed
// to the socket, which is inside the client's own in-flight time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Arrival {
  /** performance.now() when the request was received. */
  at: number;
  /** Date.now() then. */
  wall: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number } | 'hang';
export type Handler = (arrival: Arrival, index: number) => Reply | Promise<Reply>;

export interface CountingServer {
  url: string;
  arrivals: Arrival[];
  /** Most requests in flight at once. */
  maxInFlight: number;
  /** When each answer was handed to the socket (performance.now()), by arrival index. */
  answeredAt: Map<number, number>;
  handler: Handler;
  close(): Promise<void>;
}

export async function startCountingServer(handler: Handler = () => ({ status: 200, body: '{}' })): Promise<CountingServer> {
  let inFlight = 0;
  const state: CountingServer = {
    url: '',
    arrivals: [],
    maxInFlight: 0,
    answeredAt: new Map(),
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer(async (req, res) => {
    const at = performance.now();
    const wall = Date.now();
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let done = false;
    const leave = () => {
      if (!done) inFlight--;
      done = true;
    };
    req.on('close', () => {
      if (!res.writableEnded) leave(); // a hung request the client gave up on
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const arrival: Arrival = { at, wall, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
    const index = state.arrivals.push(arrival) - 1;
    const reply = await state.handler(arrival, index);
    if (reply === 'hang') return;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    leave();
    state.answeredAt.set(index, performance.now());
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** Most arrivals in any window [t, t + windowMs). */
export function busiestWindow(arrivals: Arrival[], windowMs = 1000): number {
  const times = arrivals.map((a) => a.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}
