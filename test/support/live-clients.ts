// Real subscription clients for the live tests: graphql-ws's client over ws
// (what Apollo Client's GraphQLWsLink drives) and graphql-sse's client, each
// collecting what it receives, with waits that fail with what did arrive.
import { type Client as WsClient, createClient as createWsClient } from 'graphql-ws';
import { type Client as SseClient, createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';

export interface LiveResult {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** What one subscription received: its results, and how it ended. */
export class Received {
  readonly results: LiveResult[] = [];
  completed = false;
  error: unknown;
  private waiters: (() => void)[] = [];

  push(result: LiveResult): void {
    this.results.push(result);
    this.wake();
  }

  end(error?: unknown): void {
    if (error !== undefined) this.error = error;
    else this.completed = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** The ProductChange events received, in order. */
  get changes(): { id: string; product: Record<string, any> | null }[] {
    return this.results.flatMap((r) => (r.data?.productChanged ? [r.data.productChanged] : []));
  }

  /** The last state received for a product id. */
  latest(id: string | number): Record<string, any> | null | undefined {
    return this.changes.filter((c) => c.id === String(id)).at(-1)?.product;
  }

  /** Resolves once `condition` holds; fails after `ms` with what was received. */
  async until(condition: (received: this) => boolean, ms = 20_000, what = 'the expected results'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition(this)) {
      if (this.error !== undefined || this.completed || Date.now() > deadline) {
        if (condition(this)) return;
        throw new Error(`did not receive ${what} within ${ms} ms (${this.completed ? 'completed' : this.error !== undefined ? `error: ${describe(this.error)}` : 'still open'}); received:\n${JSON.stringify(this.results, null, 1).slice(0, 3000)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now())));
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }
}

export function describe(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error) return `close ${(error as { code: number }).code} ${(error as { reason?: string }).reason ?? ''}`;
  if (Array.isArray(error)) return JSON.stringify(error);
  return error instanceof Error ? error.message : String(error);
}

export interface Subscribe {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** A graphql-ws client that does not retry (a test sees every close), with an optional API key in connection_init. */
export function wsClient(baseUrl: string, options: { apiKey?: string; lazy?: boolean; retryAttempts?: number; headers?: Record<string, string>; onClosed?: (event: unknown) => void } = {}): WsClient {
  const url = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
  const headers = options.headers;
  class HeaderWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  return createWsClient({
    url,
    webSocketImpl: headers ? HeaderWebSocket : WebSocket,
    lazy: options.lazy ?? true,
    retryAttempts: options.retryAttempts ?? 0,
    retryWait: async () => { await new Promise((resolve) => setTimeout(resolve, 100)); },
    connectionParams: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined,
    on: options.onClosed ? { closed: options.onClosed } : undefined,
  });
}

/** Subscribes through a graphql-ws or graphql-sse client (the same `subscribe`); `dispose` completes the subscription. */
function subscribeThrough(client: WsClient | SseClient, request: Subscribe): { received: Received; dispose: () => void } {
  const received = new Received();
  const dispose = client.subscribe(request, {
    next: (result) => received.push(result as LiveResult),
    error: (error) => received.end(error ?? new Error('error')),
    complete: () => received.end(),
  });
  return { received, dispose };
}

/** A graphql-sse client (distinct connections mode) that does not retry unless told to. */
export function sseClient(baseUrl: string, options: { apiKey?: string; retryAttempts?: number; headers?: Record<string, string> } = {}): SseClient {
  return createSseClient({
    url: `${baseUrl}/graphql/stream`,
    singleConnection: false,
    retryAttempts: options.retryAttempts ?? 0,
    retry: async () => { await new Promise((resolve) => setTimeout(resolve, 100)); },
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
  });
}

export const subscribeWs: (client: WsClient, request: Subscribe) => ReturnType<typeof subscribeThrough> = subscribeThrough;
export const subscribeSse: (client: SseClient, request: Subscribe) => ReturnType<typeof subscribeThrough> = subscribeThrough;
