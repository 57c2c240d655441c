// The change feed: every committed write tells every instance which products
// it changed, through Postgres, not Redis, so it works while Redis refuses
// writes, is down or has lost an invalidation in a failover.
//
// Writers: notifyProductsChanged(tx, ids, change) inside the write's own
// transaction. Postgres delivers a NOTIFY only when (and if) the transaction
// commits, to every session listening on the channel, in commit order.
//
// Listeners: one ChangeFeed per process, a dedicated pg.Client (not from the
// pool) that LISTENs on the channel, checks itself with a heartbeat and comes
// back with backoff when the connection is lost. While it is not listening
// the process cannot hear other instances' writes, so `listening` is false
// and the response cache serves and stores nothing; when it is back, it
// reports "everything may have changed" (it may have missed notifications).
//
// Its clock, `now()`, is this process's monotonic clock set to Postgres's
// clock_timestamp() (re-measured on every heartbeat), so the times every
// instance stamps on shared cache entries and on the changes it hears are
// comparable within a few milliseconds whatever the hosts' own clocks say.
import pg from 'pg';
import type { Statement, TransactionClient } from '../db/writes/transaction.ts';

export const CHANGE_CHANNEL = 'catalogue_changes';

export type FeedChange = 'created' | 'updated' | 'deleted';


/** Postgres refuses NOTIFY payloads from 8000 bytes on; leave room. */
const MAX_PAYLOAD_BYTES = 7_900;
/** More products than this in one write: tell everyone to drop everything instead. */
const MAX_IDS = 20_000;

/** The payloads announcing that `ids` were changed: as few as fit the size limit (ids are ASCII digits). */
export function changePayloads(ids: readonly number[], change: FeedChange): string[] {
  if (ids.length > MAX_IDS) return [JSON.stringify({ change: 'all' })];
  const payloads: string[] = [];
  let chunk: number[] = [];
  let length = 0;
  const overhead = JSON.stringify({ change, ids: [] }).length;
  for (const id of ids) {
    const size = String(id).length + 1;
    if (chunk.length > 0 && overhead + length + size > MAX_PAYLOAD_BYTES) {
      payloads.push(JSON.stringify({ change, ids: chunk }));
      chunk = [];
      length = 0;
    }
    chunk.push(id);
    length += size;
  }
  if (chunk.length > 0 || payloads.length === 0) payloads.push(JSON.stringify({ change, ids: chunk }));
  return payloads;
}

/**
 * Announces, inside the write's transaction, that these products changed: one
 * statement (one NOTIFY per payload), delivered to every listening instance
 * when the transaction commits, never if it rolls back.
 */
export async function notifyProductsChanged(tx: TransactionClient, ids: readonly number[], change: FeedChange): Promise<void> {
  await tx.query(NOTIFY, [changePayloads(ids, change)]);
}

const NOTIFY: Statement = { name: 'write_notify', text: `SELECT pg_notify('${CHANGE_CHANNEL}', payload) FROM unnest($1::text[]) AS payload` };

/**
 * The same announcement for one product, as an SQL expression a write's own
 * statement selects (no extra round trip): `productId` is its SQL for the id.
 */
export const notifyOne = (productId: string, change: FeedChange): string =>
  `pg_notify('${CHANGE_CHANNEL}', json_build_object('change', '${change}', 'ids', json_build_array(${productId}))::text)`;

/**
 * Announces, inside the swap's transaction of `data:load --replace`, that the
 * whole catalogue was replaced: every listening instance drops everything it
 * cached (and has the CDN purge every copy) when the swap commits.
 */
export const NOTIFY_REPLACED = `SELECT pg_notify('${CHANGE_CHANNEL}', '{"change":"replaced"}')`;

/** A heard notification: products changed, anything may have (`all`), or the catalogue was replaced by a load. */
export type HeardChange = { change: FeedChange; ids: number[] } | { change: 'all' } | { change: 'replaced' };

export function parsePayload(payload: string | undefined): HeardChange {
  try {
    const parsed = JSON.parse(payload ?? '') as { change?: unknown; ids?: unknown };
    if (parsed.change === 'replaced') return { change: 'replaced' };
    if ((parsed.change === 'created' || parsed.change === 'updated' || parsed.change === 'deleted')
      && Array.isArray(parsed.ids) && parsed.ids.every((id) => Number.isSafeInteger(id))) {
      return { change: parsed.change, ids: parsed.ids as number[] };
    }
  } catch { /* below */ }
  // Unknown or malformed: the safe reading is that anything may have changed.
  return { change: 'all' };
}

export interface ChangeFeedHandlers {
  /** A committed write changed these products (any instance's, this one's included). */
  changed(ids: number[], change: FeedChange): void;
  /** Anything may have changed: the feed (re)connected after a gap in which it heard nothing, or a writer said so. */
  everything(): void;
  /** A load replaced the whole catalogue (committed): everything changed, CDN copies included. */
  replaced(): void;
  /** The LISTEN connection was lost: nothing is heard until `everything()` says it is back. */
  interrupted?(): void;
}

export interface ChangeFeedOptions {
  /** The primary (LISTEN needs a session: not through a transaction pooler). */
  url: string;
  connectTimeoutMs: number;
  warn(message: string, error?: unknown): void;
  /** Heartbeat period (default 1 s): a connection that stopped answering is given up after heartbeatTimeoutMs more. */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
}

export interface ChangeFeedStats {
  notifications: number;
  /** Times the connection was lost, or an attempt to set it up failed. */
  disconnects: number;
  /** Round trip of the last clock measurement (the clock is known within half of it). */
  clockRttMs: number;
}

/** Samples with a longer round trip are not used to set the clock (unless there is none yet). */
const MAX_CLOCK_RTT_MS = 40;
const RECONNECT_MIN_MS = 50;
const RECONNECT_MAX_MS = 2_000;

export class ChangeFeed {
  /** True while connected and LISTENing: every write committed from now on will be heard. */
  listening = false;
  readonly stats: ChangeFeedStats = { notifications: 0, disconnects: 0, clockRttMs: Number.NaN };
  private readonly options: ChangeFeedOptions;
  private readonly heartbeatMs: number;
  private readonly heartbeatTimeoutMs: number;
  private readonly handlers: ChangeFeedHandlers[] = [];
  private client: pg.Client | undefined;
  private closed = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** now() = performance.now() + offset; the wall clock until Postgres has been asked. */
  private offset = Date.now() - performance.now();

  constructor(options: ChangeFeedOptions) {
    this.options = options;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 2_000;
  }

  /** Milliseconds since the epoch on Postgres's clock (as measured; monotonic between measurements). */
  now(): number {
    return performance.now() + this.offset;
  }

  /** Adds a listener (in order: the response cache's first, then the live subscriptions'). */
  subscribe(handlers: ChangeFeedHandlers): void {
    this.handlers.push(handlers);
  }

  /** Connects and listens; resolves when listening, or when the first attempt failed (it keeps trying in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      query_timeout: this.heartbeatTimeoutMs,
      keepAlive: true,
      application_name: `catalogue-changes:${process.pid}`,
    });
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (message) => {
      if (client !== this.client || message.channel !== CHANGE_CHANNEL) return;
      this.stats.notifications++;
      const heard = parsePayload(message.payload);
      for (const handlers of this.handlers) {
        if (heard.change === 'all') handlers.everything();
        else if (heard.change === 'replaced') handlers.replaced();
        else handlers.changed(heard.ids, heard.change);
      }
    });
    try {
      await client.connect();
      // The clock first: the moment of "listening from now on" is stamped with it.
      for (let i = 0; i < 3; i++) await this.measureClock(client, i === 0);
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (client !== this.client) return;
      // Whatever committed before LISTEN took effect went unheard: anything may have changed.
      for (const handlers of this.handlers) handlers.everything();
      this.listening = true;
      this.attempt = 0;
      this.schedule(() => this.heartbeat(client), this.heartbeatMs);
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** Asks Postgres for its clock; keeps the answer unless its round trip was long (and a better one is known). */
  private async measureClock(client: pg.Client, force: boolean): Promise<void> {
    const sent = performance.now();
    const { rows } = await client.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
    const received = performance.now();
    const rtt = received - sent;
    if (force || rtt <= MAX_CLOCK_RTT_MS || rtt <= this.stats.clockRttMs) {
      this.offset = Number(rows[0]!.ms) - (sent + received) / 2;
      this.stats.clockRttMs = rtt;
    }
  }

  private async heartbeat(client: pg.Client): Promise<void> {
    if (client !== this.client || this.closed) return;
    try {
      await this.measureClock(client, false);
      this.schedule(() => this.heartbeat(client), this.heartbeatMs);
    } catch (error) {
      this.lost(client, error);
    }
  }

  private schedule(task: () => void, ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(task, ms);
    this.timer.unref();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.listening = false;
    client.removeAllListeners('notification');
    client.on('error', () => {});
    client.end().catch(() => {});
    if (this.closed) return;
    for (const handlers of this.handlers) handlers.interrupted?.();
    this.stats.disconnects++;
    this.options.warn('change feed: LISTEN connection lost; not serving from the response cache until it is back', error);
    const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.attempt++);
    this.schedule(() => { void this.connect(); }, ceiling / 2 + Math.random() * ceiling / 2);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}
