// Sidecar mode's sync: one instance per deployment (the holder of a Postgres
// advisory lock, taken on a connection of its own; the others try again every
// interval and take over when the holder's session ends) reads the legacy
// service within its request budget and applies what it finds through
// CatalogService.applySourceProduct, the write path every write takes.
//
// A round starts every LEGACY_SYNC_INTERVAL_SECONDS (T). Its budget is
// R × T requests (R = LEGACY_MAX_RPS), that is R × T / 3 product
// verifications (detail, styles, related), spent in this order:
//   (c) recently requested products (reads and writes, this instance's and
//       the others', heard through NOTIFY), at most half the round;
//   (a) new products: listing pages probed from the page holding the highest
//       id known, every id past it fetched;
//   (b) the rolling re-verification window: the next W known products after
//       the persistent cursor, wrapping around at the end (a "pass").
// Products whose related ids did not exist yet are applied again at the end
// of the round (no legacy request) and verified first next round if still
// incomplete. Cursor, highest id and the last successful legacy request are
// in legacy_sync_state, so a restart (or another instance) resumes there.
// docs/sidecar.md has the staleness this gives.
import pg from 'pg';
import type { CatalogService } from '../catalog/service.ts';
import { LegacyCircuitOpenError, LegacyError } from '../legacy/errors.ts';
import type { LegacyClient, LegacyResponse } from '../legacy/legacy-client.ts';
import type { RecentIds } from './recent-ids.ts';
import { parseSnapshot, SnapshotFormatError, type SourceSnapshot } from './snapshot.ts';
import { saysProductGone } from '../catalog/source.ts';

/** pg_try_advisory_lock key of the sync ("LEGS" in ASCII). */
export const SYNC_LOCK_KEY = 0x4c454753;
/** Where instances that do not sync tell the one that does which products their clients asked for. */
export const RECENT_CHANNEL = 'catalogue_legacy_recent';

export type SyncState = 'disabled' | 'starting' | 'standby' | 'syncing' | 'stopped';
export type SyncErrorKind = 'unavailable' | 'breaker' | 'http' | 'format' | 'database' | 'lock';

export interface SyncWorkerOptions {
  client: LegacyClient;
  service: CatalogService;
  /** The API's pool: sync state reads and writes. */
  pool: pg.Pool;
  /** For the lock's own connection. */
  databaseUrl: string;
  connectTimeoutMs: number;
  intervalMs: number;
  maxRps: number;
  pageSize: number;
  /** Whether this instance competes for the sync at all. */
  sync: boolean;
  recent: RecentIds;
  warn(message: string, error?: unknown): void;
  info(message: string): void;
}

export interface SyncProgress {
  cursor: number;
  highestId: number;
  passes: number;
  rounds: number;
  verified: number;
  /** superseded: written here while the legacy service was read (verified again next round; a product that never converges keeps adding here). */
  applied: { created: number; updated: number; unchanged: number; deleted: number; superseded: number };
  queue: { recent: number; incomplete: number };
  lastRound: { at: string; requests: number; priority: number; discovered: number; window: number; ms: number } | undefined;
}

const STATE_ROW = 'INSERT INTO legacy_sync_state (id) VALUES (1) ON CONFLICT (id) DO NOTHING';
const READ_STATE = 'SELECT cursor, highest_id AS "highestId", passes, last_success_at AS "lastSuccessAt" FROM legacy_sync_state WHERE id = 1';

class StopRound extends Error {}

export class SyncWorker {
  state: SyncState;
  readonly errors: Record<SyncErrorKind, number> = { unavailable: 0, breaker: 0, http: 0, format: 0, database: 0, lock: 0 };
  private readonly options: SyncWorkerOptions;
  private readonly progressState: SyncProgress = {
    cursor: 0, highestId: 0, passes: 0, rounds: 0, verified: 0,
    applied: { created: 0, updated: 0, unchanged: 0, deleted: 0, superseded: 0 },
    queue: { recent: 0, incomplete: 0 },
    lastRound: undefined,
  };
  /** Products applied without some related rows: the snapshot and the version it left here (re-applied only while that is still the version). */
  private readonly incomplete = new Map<number, { snapshot: SourceSnapshot | undefined; version: string | null }>();
  private lockClient: pg.Client | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private wake: (() => void) | undefined;
  /** Wall ms of the last successful legacy request of the sync (any instance's, as stored). */
  private lastSuccessAt: number | undefined;
  private stateTimer: NodeJS.Timeout | undefined;

  constructor(options: SyncWorkerOptions) {
    this.options = options;
    this.state = options.sync ? 'starting' : 'disabled';
  }

  progress(): SyncProgress {
    return { ...this.progressState, applied: { ...this.progressState.applied }, queue: { recent: this.options.recent.size, incomplete: this.incomplete.size } };
  }

  /** Wall ms of the last successful legacy request, this instance's or the syncing one's. */
  lastSuccess(): number | undefined {
    const local = this.options.client.stats().lastSuccessAt;
    if (local === undefined) return this.lastSuccessAt;
    return this.lastSuccessAt === undefined ? local : Math.max(local, this.lastSuccessAt);
  }

  async start(): Promise<void> {
    // Postgres not answering yet must not keep the API from serving: the state row is made again when the lock is taken.
    await this.options.pool.query(STATE_ROW).then(() => this.refreshShared())
      .catch((error: unknown) => this.options.warn('could not read the legacy sync state yet', error));
    // Every instance follows the stored state (X-Source-Age, /readyz), syncing or not.
    this.stateTimer = setInterval(() => void this.refreshShared().catch(() => {}), Math.min(1000, this.options.intervalMs));
    this.stateTimer.unref();
    this.running = true;
    if (this.options.sync) this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.state = 'stopped';
    clearInterval(this.stateTimer);
    this.abort.abort(new StopRound('stopping'));
    this.wake?.();
    await this.loop?.catch(() => {});
    await this.releaseLock();
  }

  /** Runs a round at once (tests, and the pass-through after a write it could not apply). */
  nudge(): void {
    this.wake?.();
  }

  private async refreshShared(): Promise<void> {
    const { rows } = await this.options.pool.query<{ cursor: number; highestId: number; passes: number; lastSuccessAt: Date | null }>(READ_STATE);
    const row = rows[0];
    if (!row) return;
    if (row.lastSuccessAt) this.lastSuccessAt = Math.max(this.lastSuccessAt ?? 0, row.lastSuccessAt.getTime());
    if (this.state !== 'syncing') Object.assign(this.progressState, { cursor: row.cursor, highestId: row.highestId, passes: row.passes });
  }

  private async sleep(ms: number): Promise<void> {
    if (!this.running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => { clearTimeout(timer); resolve(); };
    });
    this.wake = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      try {
        if (await this.holdLock()) await this.round();
      } catch (error) {
        if (!this.running) break;
        this.count(error);
        this.options.warn('legacy sync round failed', error);
      }
      await this.sleep(Math.max(0, started + this.options.intervalMs - Date.now()));
    }
  }

  private count(error: unknown): void {
    if (error instanceof LegacyCircuitOpenError) this.errors.breaker++;
    else if (error instanceof LegacyError) this.errors.unavailable++;
    else if (error instanceof SnapshotFormatError) this.errors.format++;
    else if (error instanceof HttpAnswerError) this.errors.http++;
    else this.errors.database++;
  }

  /** Whether this instance holds the sync lock (taking it when free). */
  private async holdLock(): Promise<boolean> {
    if (this.lockClient) return true;
    const client = new pg.Client({ connectionString: this.options.databaseUrl, connectionTimeoutMillis: this.options.connectTimeoutMs });
    client.on('error', (error) => {
      // The session is gone, and the lock with it: another instance may take over.
      if (this.lockClient === client) {
        this.lockClient = undefined;
        if (this.running) this.state = 'standby';
        this.errors.lock++;
        this.options.warn('lost the legacy sync lock connection', error);
      }
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SYNC_LOCK_KEY]);
      if (!rows[0]?.locked) {
        await client.end();
        this.state = 'standby';
        return false;
      }
      // Other instances' recently requested ids.
      client.on('notification', (message) => {
        if (message.channel !== RECENT_CHANNEL) return;
        try {
          for (const id of JSON.parse(message.payload ?? '[]') as unknown[]) if (typeof id === 'number') this.options.recent.add(id);
        } catch { /* not ours */ }
      });
      await client.query(`LISTEN ${RECENT_CHANNEL}`);
      this.lockClient = client;
      this.state = 'syncing';
      this.options.info('this instance now runs the legacy sync');
      await this.options.pool.query(STATE_ROW);
      const { rows: state } = await this.options.pool.query<{ cursor: number; highestId: number; passes: number }>(READ_STATE);
      Object.assign(this.progressState, state[0] ?? {});
      return true;
    } catch (error) {
      this.errors.lock++;
      if (this.lockClient === client) {
        this.lockClient = undefined;
        this.state = 'standby';
      }
      await client.end().catch(() => {});
      throw error;
    }
  }

  private async releaseLock(): Promise<void> {
    const client = this.lockClient;
    this.lockClient = undefined;
    if (!client) return;
    await client.query('SELECT pg_advisory_unlock($1)', [SYNC_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  }

  private async saveState(): Promise<void> {
    const p = this.progressState;
    const last = this.options.client.stats().lastSuccessAt;
    await this.options.pool.query(
      'UPDATE legacy_sync_state SET cursor = $1, highest_id = $2, passes = $3, last_success_at = greatest(last_success_at, $4::timestamptz), updated_at = now() WHERE id = 1',
      [p.cursor, p.highestId, p.passes, last === undefined ? null : new Date(last)]);
    if (last !== undefined) this.lastSuccessAt = Math.max(this.lastSuccessAt ?? 0, last);
  }

  private async get(path: string): Promise<LegacyResponse> {
    if (!this.running) throw new StopRound('stopping');
    // The lock's session is gone: another instance may be syncing now.
    if (!this.lockClient) throw new StopRound('lost the sync lock');
    return this.options.client.get(path, { priority: 'background', signal: this.abort.signal });
  }

  /**
   * Reads product `id` from the legacy service (3 requests; 1 when it is
   * gone) and applies it; the snapshot when it has related ids missing here.
   */
  async verify(id: number): Promise<void> {
    const readBefore = await this.options.service.localVersion(id);
    const fetched = await fetchSnapshot((path) => this.get(path), id);
    const result = await this.options.service.applySourceProduct(id, fetched, readBefore);
    this.progressState.verified++;
    this.progressState.applied[result.outcome === 'absent' ? 'deleted' : result.outcome]++;
    if (result.outcome === 'superseded') {
      // Written here while the legacy service was read: read it again next round.
      this.options.recent.add(id);
      return;
    }
    if (result.missingRelated.length > 0) this.incomplete.set(id, { snapshot: fetched ?? undefined, version: result.written?.product.version ?? null });
    else this.incomplete.delete(id);
  }

  private async round(): Promise<void> {
    const started = Date.now();
    const { maxRps, intervalMs, pageSize, recent } = this.options;
    const budget = Math.max(3, Math.floor((maxRps * intervalMs) / 1000));
    let used = 0;
    const seen = new Set<number>();
    const stats = { priority: 0, discovered: 0, window: 0 };
    const check = async (id: number, kind: keyof typeof stats) => {
      seen.add(id);
      used += 3;
      try {
        await this.verify(id);
      } catch (error) {
        // One product the legacy service answers badly (a 500 after the retries,
        // a body that is not the contract's) must not stop the crawl at it:
        // counted, tried again first next round, and the round goes on.
        // Unreachable, breaker open, a database failure: the round stops.
        if (!(error instanceof HttpAnswerError || error instanceof SnapshotFormatError)) throw error;
        this.count(error);
        this.options.warn(`legacy sync skipped product ${id}`, error);
        recent.add(id);
      }
      stats[kind]++;
      await this.saveState();
    };
    try {
      // (c) recently requested and incomplete products: at most half the round.
      const half = Math.max(1, Math.floor(budget / 6));
      const priority = [...new Set([...this.incomplete.keys(), ...recent.take(half)])].slice(0, half);
      for (const id of priority) {
        if (used + 3 > budget) break;
        await check(id, 'priority');
      }
      // (a) new products past the highest id known.
      const p = this.progressState;
      if (p.highestId === 0) {
        const { rows } = await this.options.pool.query<{ max: number | null }>('SELECT max(id) AS max FROM products');
        p.highestId = rows[0]?.max ?? 0;
      }
      const { rows: counted } = await this.options.pool.query<{ n: string }>('SELECT count(*) AS n FROM products WHERE id <= $1', [p.highestId]);
      let page = Math.max(1, Math.ceil(Number(counted[0]?.n ?? 0) / pageSize));
      let stepsBack = 0;
      listing: while (used + 1 <= budget && this.running) {
        const answer = await this.get(`/products?page=${page}&count=${pageSize}`);
        used++;
        if (answer.status !== 200) throw new HttpAnswerError('GET /products', answer.status);
        const items = answer.json<{ id: number }[]>();
        if (!Array.isArray(items)) throw new SnapshotFormatError(0, 'listing');
        // Deletions there moved our last product to an earlier page (or the
        // listing now ends before this page): look there.
        // Back 1, 2, 4, ... pages (a request each), at most 6 times a round.
        if (page > 1 && stepsBack < 6 && (items.length === 0 || items[0]!.id > p.highestId)) {
          page = Math.max(1, page - 2 ** stepsBack);
          stepsBack++;
          continue;
        }
        stepsBack = 6;
        for (const item of items) {
          if (!Number.isSafeInteger(item?.id) || item.id <= p.highestId) continue;
          if (used + 3 > budget) break listing;
          if (!seen.has(item.id)) await check(item.id, 'discovered');
          p.highestId = Math.max(p.highestId, item.id);
        }
        if (items.length < pageSize) break;
        page++;
      }
      await this.saveState();
      // (b) the rolling window: the next known products after the cursor, wrapping around.
      let room = Math.floor((budget - used) / 3);
      let wrapped = false;
      while (room > 0 && this.running) {
        const { rows } = await this.options.pool.query<{ id: number }>('SELECT id FROM products WHERE id > $1 ORDER BY id LIMIT $2', [p.cursor, room]);
        if (rows.length === 0) {
          // The end of the catalogue: a pass is complete, start over (once per round).
          if (wrapped || p.cursor === 0) break;
          p.cursor = 0;
          p.passes++;
          wrapped = true;
          continue;
        }
        for (const { id } of rows) {
          if (room === 0) break;
          if (!seen.has(id)) {
            await check(id, 'window');
            room--;
          }
          p.cursor = id;
        }
      }
      await this.saveState();
    } finally {
      // Incomplete products whose related products have arrived since: applied again, no legacy request.
      for (const [id, { snapshot, version }] of [...this.incomplete]) {
        if (!snapshot || !this.running) continue;
        const result = await this.options.service.applySourceProduct(id, snapshot, version).catch(() => undefined);
        if (result?.outcome === 'superseded') {
          this.incomplete.delete(id);
          recent.add(id);
        } else if (result && result.missingRelated.length === 0) this.incomplete.delete(id);
        else if (result) this.incomplete.set(id, { snapshot, version: result.written?.product.version ?? null });
      }
      this.progressState.rounds++;
      this.progressState.lastRound = { at: new Date(started).toISOString(), requests: used, ...stats, ms: Date.now() - started };
    }
  }
}

/** A legacy answer the sync cannot use (not 200, not 404). */
export class HttpAnswerError extends Error {
  readonly status: number;
  constructor(what: string, status: number) {
    super(`legacy ${what} answered ${status}`);
    this.name = 'HttpAnswerError';
    this.status = status;
  }
}

/**
 * Product `id` as the legacy service shows it now: its three product routes
 * (null when any says the product is not found: deleted). LegacyError or HttpAnswerError when it
 * could not be read.
 */
export async function fetchSnapshot(get: (path: string) => Promise<LegacyResponse>, id: number): Promise<SourceSnapshot | null> {
  const bodies: string[] = [];
  for (const path of [`/products/${id}`, `/products/${id}/styles`, `/products/${id}/related`]) {
    const answer = await get(path);
    // Gone only when the legacy service says so in its own words; a stray 404 (a gateway's page) is an error, retried.
    if (saysProductGone(id, answer.status, answer.body)) return null;
    if (answer.status !== 200) throw new HttpAnswerError(`GET ${path}`, answer.status);
    bodies.push(answer.body);
  }
  return parseSnapshot(id, bodies[0]!, bodies[1]!, bodies[2]!);
}

