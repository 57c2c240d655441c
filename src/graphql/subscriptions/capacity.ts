// What live subscriptions may hold of one process, so that no one client can
// take it (connections are file descriptors every other request needs too;
// what the hub keeps per watched id is memory):
// - connections (WebSockets and SSE streams): per process, per client
//   address, per API key, and, per address, WebSockets still waiting for
//   their connection_init (what costs the least to open and nothing to hold);
// - subscriptions and watched product ids (a subscription of 100 ids is 100
//   watches: what the hub keeps per subscriber grows with them): per process,
//   and per client (its API key, or its address without one).
// Counted here, synchronously, when something starts, and given back when it
// ends, so concurrent arrivals cannot overshoot a cap. A refusal names the
// setting; the transports turn it into a close code or an HTTP status.
import type { Caller } from '../../auth/access.ts';
import type { LiveCaps } from '../../config.ts';
import type { Refusal } from './operation.ts';
import { CAP_RETRY_AFTER_SECONDS } from '../../http/connections.ts';


/**
 * Past a cap: the client's own (it holds too much: WebSocket 4429, HTTP 429),
 * the process's (full: try again, or another instance: 1013, 503), or too many
 * of the address's WebSockets awaiting connection_init (a burst of reconnects
 * after a restart: 1013, the client retries).
 */
export interface CapRefusal {
  scope: 'client' | 'process' | 'pending';
  /** The GraphQL error code: TOO_MANY_CONNECTIONS, TOO_MANY_SUBSCRIPTIONS (the client's), SERVICE_UNAVAILABLE (the process's). */
  code: string;
  limit: number;
  message: string;
}

/** Counts per name, and their total. */
class Tally {
  private readonly counts = new Map<string, number>();
  total = 0;

  of(name: string): number {
    return this.counts.get(name) ?? 0;
  }

  add(name: string, n: number): void {
    this.counts.set(name, this.of(name) + n);
    this.total += n;
  }

  remove(name: string, n: number): void {
    const left = this.of(name) - n;
    if (left > 0) this.counts.set(name, left);
    else this.counts.delete(name);
    this.total -= n;
  }
}

/** A live connection's place: held from its upgrade (or stream) until it closes. */
export interface ConnectionSlot {
  /** Its caller is known (connection_init, or the stream's request): counted against its key; a refusal gives the slot back. */
  identified(caller: Caller): CapRefusal | undefined;
  /** It closed (any number of calls). */
  release(): void;
}

/** Who a subscription's cap counts against: its key, or its address without one. */
function clientOf(caller: Caller): string {
  return caller.key ? `key:${caller.key.id}` : `address:${caller.address}`;
}

export class LiveCapacity {
  private readonly caps: LiveCaps;
  private readonly connections = new Tally();
  private readonly pending = new Tally();
  private readonly keyConnections = new Tally();
  private readonly subscriptions = new Tally();
  private readonly watches = new Tally();

  constructor(caps: LiveCaps) {
    this.caps = caps;
  }

  /** Counts now: connections, WebSockets waiting for connection_init, subscriptions, watched ids. */
  get held(): { connections: number; pending: number; subscriptions: number; watches: number } {
    return { connections: this.connections.total, pending: this.pending.total, subscriptions: this.subscriptions.total, watches: this.watches.total };
  }

  /** A new WebSocket (waiting for connection_init: `pending`) or SSE stream from `address`. */
  connect(address: string, pending: boolean): ConnectionSlot | CapRefusal {
    const { caps } = this;
    if (this.connections.total >= caps.connections) {
      return full(caps.connections, `this server holds its most live connections, ${caps.connections} (LIVE_MAX_CONNECTIONS): try again shortly`);
    }
    if (this.connections.of(address) >= caps.connectionsPerAddress) {
      return tooMany('TOO_MANY_CONNECTIONS', caps.connectionsPerAddress, `at most ${caps.connectionsPerAddress} live connections per address (LIVE_MAX_CONNECTIONS_PER_ADDRESS)`);
    }
    if (pending && this.pending.of(address) >= caps.pendingPerAddress) {
      return { scope: 'pending', code: 'TOO_MANY_CONNECTIONS', limit: caps.pendingPerAddress, message: `at most ${caps.pendingPerAddress} WebSockets per address may await connection_init (LIVE_MAX_PENDING_PER_ADDRESS)` };
    }
    this.connections.add(address, 1);
    if (pending) this.pending.add(address, 1);
    return this.slot(address, pending);
  }

  private slot(address: string, pending: boolean): ConnectionSlot {
    let waiting = pending;
    let key: string | undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.connections.remove(address, 1);
      if (waiting) this.pending.remove(address, 1);
      if (key !== undefined) this.keyConnections.remove(key, 1);
    };
    const identified = (caller: Caller): CapRefusal | undefined => {
      if (waiting) this.pending.remove(address, 1);
      waiting = false;
      if (!caller.key || released) return undefined;
      const id = String(caller.key.id);
      if (this.keyConnections.of(id) >= this.caps.connectionsPerKey) {
        release();
        return tooMany('TOO_MANY_CONNECTIONS', this.caps.connectionsPerKey, `at most ${this.caps.connectionsPerKey} live connections per API key (LIVE_MAX_CONNECTIONS_PER_KEY)`);
      }
      key = id;
      this.keyConnections.add(id, 1);
      return undefined;
    };
    return { identified, release };
  }

  /** A subscription of `ids` ids by `caller`: a function that gives its place back when it ends, or a refusal. */
  subscribe(caller: Caller, ids: number): (() => void) | CapRefusal {
    const { caps } = this;
    const who = clientOf(caller);
    const owner = caller.key ? 'API key' : 'address';
    if (this.subscriptions.total >= caps.subscriptions) {
      return full(caps.subscriptions, `this server holds its most subscriptions, ${caps.subscriptions} (LIVE_MAX_SUBSCRIPTIONS): try again shortly`);
    }
    if (this.watches.total + ids > caps.watches) {
      return full(caps.watches, `this server watches its most product ids, ${caps.watches} (LIVE_MAX_WATCHED_IDS): try again shortly`);
    }
    if (this.subscriptions.of(who) >= caps.subscriptionsPerClient) {
      return tooMany('TOO_MANY_SUBSCRIPTIONS', caps.subscriptionsPerClient, `at most ${caps.subscriptionsPerClient} subscriptions per ${owner} (LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT): complete one first`);
    }
    if (this.watches.of(who) + ids > caps.watchesPerClient) {
      return tooMany('TOO_MANY_SUBSCRIPTIONS', caps.watchesPerClient, `at most ${caps.watchesPerClient} watched product ids per ${owner} (LIVE_MAX_WATCHED_IDS_PER_CLIENT); this subscription has ${ids} and ${this.watches.of(who)} are watched: complete one first`);
    }
    this.subscriptions.add(who, 1);
    this.watches.add(who, ids);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.subscriptions.remove(who, 1);
      this.watches.remove(who, ids);
    };
  }
}

function full(limit: number, message: string): CapRefusal {
  return { scope: 'process', code: 'SERVICE_UNAVAILABLE', limit, message };
}

function tooMany(code: string, limit: number, message: string): CapRefusal {
  return { scope: 'client', code, limit, message };
}

/** A refusal as a subscription's answer: 429 for the client's caps, 503 for the process's, with Retry-After. */
export function capAnswer(refusal: CapRefusal): Refusal {
  return {
    status: refusal.scope === 'client' ? 429 : 503,
    errors: [{ message: refusal.message, extensions: { code: refusal.code, limit: refusal.limit, retryAfter: CAP_RETRY_AFTER_SECONDS } }],
    headers: [['retry-after', String(CAP_RETRY_AFTER_SECONDS)]],
  };
}

export function isCapRefusal(value: unknown): value is CapRefusal {
  return typeof value === 'object' && value !== null && 'scope' in value && 'message' in value;
}
