// One HTTP attempt against the legacy service: no retries, no budget, just
// the exchange and an honest account of how it ended. Never throws.
import http from 'node:http';
import https from 'node:https';
import type { Clock } from './clock.ts';

export interface AttemptRequest {
  url: URL;
  method: string;
  headers: http.OutgoingHttpHeaders;
  body: Buffer | undefined;
  /** For the whole exchange: connect, send, headers and body. */
  timeoutMs: number;
  agent: http.Agent | https.Agent;
  clock: Clock;
  signal: AbortSignal | undefined;
  /** The request has been handed to the network in full (called once or more; a response implies it). */
  onSent: () => void;
}

export type AttemptResult =
  | { kind: 'response'; status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }
  | {
      kind: 'timeout' | 'network' | 'aborted';
      /**
       * The request may have reached the service: false only when it failed
       * before a connection existed (refused, DNS, connect timeout), which
       * is when a write can safely be sent again.
       */
      maybeSent: boolean;
      error: Error;
    };

export function attempt(request: AttemptRequest): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const { clock, signal } = request;
    let settled = false;
    let timedOut = false;
    let maybeSent = false;
    const headers = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = request.body.length;
    const lib = request.url.protocol === 'https:' ? https : http;
    const outgoing = lib.request(request.url, { method: request.method, headers, agent: request.agent });

    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const fail = (error: Error) => {
      const kind = timedOut ? 'timeout' : signal?.aborted ? 'aborted' : 'network';
      finish({ kind, maybeSent, error });
      outgoing.destroy();
    };
    const timer = clock.setTimeout(() => {
      timedOut = true;
      outgoing.destroy(new Error(`no complete answer within ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    const onAbort = () => outgoing.destroy(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });

    outgoing.on('socket', (socket) => {
      // A reused keep-alive socket is already connected: the request goes out at once.
      if (socket.connecting) socket.once('connect', () => (maybeSent = true));
      else maybeSent = true;
    });
    outgoing.on('error', fail);
    // Emitted once the request's last bytes are handed to the operating system, on a connected socket.
    outgoing.on('finish', request.onSent);
    outgoing.on('response', (response) => {
      maybeSent = true;
      request.onSent();
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', fail);
      response.on('end', () => finish({ kind: 'response', status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('close', () => {
        if (!response.complete) fail(new Error('the answer was cut off'));
      });
    });
    outgoing.end(request.body);
  });
}
