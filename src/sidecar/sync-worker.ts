// Sidecar mode's sync: one instance per deployment (the holder of a Postgres
// advisory lock, taken on a connection of its own; the others try again every
// interval and take over when the holder's session ends) reads the legacy
// service within its request budget and applies what it finds through
// CatalogService.applySourceProduct, the write path every write takes.
//
// The work comes in rounds of R × T requests (R = LEGACY_MAX_RPS, T =
// LEGACY_SYNC_INTERVAL_SECONDS), that is R × T / 3 product verifications
// (detail, styles, related), planned in this order:
//   (c) recently requested products (reads and writes, this instance's and
//       the others', heard through NOTIFY), at most half the round;
//   (a) new products: the listing from the page holding the highest id known,
//       every id past it fetched (a page is read once and its ids kept, so a
//       fill spends one request per LEGACY_SYNC_PAGE_SIZE products on it);
//   (b) the rolling re-verification window: the next known products after
//       the persistent cursor, wrapping around at the end (a "pass").
// A round that spent its budget is followed at once by the next (work is
// pending); one that ran out of work first, T after it started.
//
// The rounds are planned one item at a time and carried out by
// 2 × LEGACY_MAX_CONCURRENCY + 4 workers, each verifying one product at a
// time (its three requests in turn, then the transaction, at most APPLYING
// transactions at once): while products are applied, the others' requests
// wait at the budget, so the legacy service is kept as busy as the budget
// allows, across rounds too (the next round is planned while the last one's
// products are still being fetched). Re-verification waits until the new
// products handed out are fetched, so a first copy is not slowed by it.
//
// A product applied while some of its related products are not here yet is
// "incomplete": its snapshot waits, keyed by the ids it lacks, and is applied
// again (no legacy request, one transaction) as soon as the last of them has
// been applied. It never takes a place in the queue; one that lacks a product
// that never comes (gone there meanwhile) is put right by its next
// verification. Cursor, highest id and the last successful legacy
// request are in legacy_sync_state, so a restart (or another instance)
// resumes there. docs/sidecar.md has the bounds this gives.
import pg from 'pg';
import type { CatalogService, SourceApplyResult } from '../catalog/writes/service.ts';
import { LegacyCircuitOpenError, LegacyError } from '../legacy/errors.ts';
import type { LegacyClient, LegacyResponse } from '../legacy/legacy-client.ts';
import type { RecentIds } from './recent-ids.ts';
import { parseSnapshot, SnapshotFormatError, type SourceSnapshot } from './snapshot.ts';
import { saysProductGone } from '../catalog/writes/source.ts';
import { inRootSpan } from '../tracing/spans.ts';

/** pg_try_advisory_lock key of the sync ("LEGS" in ASCII). */
export const SYNC_LOCK_KEY = 0x4c454753;
/** Where instances that do not sync tell the one that does which products their clients asked for. */
export const RECENT_CHANNEL = 'catalogue_legacy_recent';
/** Requests one product verification takes (detail, styles, related). */
export const REQUESTS_PER_PRODUCT = 3;
/** The sync's transactions at once (each holds a connection of the API's pool). */
const APPLYING = 2;

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
  /** LEGACY_MAX_CONCURRENCY: sets how many products are verified at once. */
  maxConcurrency: number;
  pageSize: number;
  /** Whether this instance competes for the sync at all. */
  sync: boolean;
  recent: RecentIds;
  warn(message: string, error?: unknown): void;
  info(message: string): void;
}

type RoundKind = 'priority' | 'discovered' | 'window';
type RoundStats = Record<RoundKind, number>;

export interface SyncProgress {
  cursor: number;
  highestId: number;
  passes: number;
  rounds: number;
  verified: number;
  /**
   * superseded: written here while the legacy service was read (verified again next round; a product that never converges keeps adding here).
   * completed: incomplete products applied again when a related product they lacked arrived (no legacy request).
   */
  applied: { created: number; updated: number; unchanged: number; deleted: number; superseded: number; completed: number };
  queue: { recent: number; incomplete: number };
  /** The last round planned: its requests, products by kind, and ms from its start until its last product was handed out. */
  lastRound: ({ at: string; requests: number; ms: number } & RoundStats) | undefined;
  /** Rounds that ran out of work and waited for the next, and when the first did (a first copy waits for none). */
  roundWaits: { count: number; firstAt: string | undefined };
}

/** One product to verify, and the round that planned it. */
interface Item {
  id: number;
  kind: RoundKind;
  round: RoundStats;
}

/** A product applied without some related rows: what it lacks, its snapshot, and the version that write left (re-applied only over that version). */
interface Incomplete {
  missing: Set<number>;
  snapshot: SourceSnapshot;
  version: string | null;
}

const STATE_ROW = 'INSERT INTO legacy_sync_state (id) VALUES (1) ON CONFLICT (id) DO NOTHING';
const READ_STATE = 'SELECT cursor, highest_id AS "highestId", passes, last_success_at AS "lastSuccessAt" FROM legacy_sync_state WHERE id = 1';
const PRESENT = 'SELECT id FROM products WHERE id = ANY($1::int[])';

class StopRound extends Error {}

export class SyncWorker {
  state: SyncState;
  readonly errors: Record<SyncErrorKind, number> = { unavailable: 0, breaker: 0, http: 0, format: 0, database: 0, lock: 0 };
  private readonly options: SyncWorkerOptions;
  private readonly progressState: SyncProgress = {
    cursor: 0, highestId: 0, passes: 0, rounds: 0, verified: 0,
    applied: { created: 0, updated: 0, unchanged: 0, deleted: 0, superseded: 0, completed: 0 },
    queue: { recent: 0, incomplete: 0 },
    lastRound: undefined,
    roundWaits: { count: 0, firstAt: undefined },
  };
  private readonly incomplete = new Map<number, Incomplete>();
  /** A related id not here yet → the incomplete products that lack it. */
  private readonly lacking = new Map<number, Set<number>>();
  /** Products being verified now: never handed out twice at once. */
  private readonly inProgress = new Set<number>();
  /** Asked for (recently requested) while being verified: verified once more next round. */
  private readonly askedAgain = new Set<number>();
  /** New products handed out and not done yet: the stored highest id stays below the lowest (a restart finds them again). */
  private readonly discovering = new Set<number>();
  /** New products handed out whose legacy answers are not all in yet. */
  private readonly fetchingNew = new Set<number>();
  /** Transactions of the sync under way, and the ones waiting for a turn (at most APPLYING at once). */
  private applyingNow = 0;
  private readonly applyQueue: (() => void)[] = [];
  /** The highest new product id handed out. */
  private discoveredUpTo = 0;
  private lockClient: pg.Client | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly wakers = new Set<() => void>();
  /** Wall ms of the last successful legacy request of the sync (any instance's, as stored). */
  private lastSuccessAt: number | undefined;
  /** Wall ms of the last saveState, and the one under way. */
  private savedAt = 0;
  private saving: Promise<void> | undefined;
  private stateTimer: NodeJS.Timeout | undefined;

  constructor(options: SyncWorkerOptions) {
    this.options = options;
    this.state = options.sync ? 'starting' : 'disabled';
  }

  progress(): SyncProgress {
    const highestId = this.state === 'syncing' ? this.settledHighest() : this.progressState.highestId;
    return { ...this.progressState, highestId, applied: { ...this.progressState.applied }, queue: { recent: this.options.recent.size, incomplete: this.incomplete.size }, roundWaits: { ...this.progressState.roundWaits } };
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
    this.wakeUp();
    await this.loop?.catch(() => {});
    await this.releaseLock();
  }

  /** Starts the next round at once if the sync is waiting for one. */
  nudge(): void {
    this.wakeUp();
  }

  private wakeUp(): void {
    for (const wake of [...this.wakers]) wake();
  }

  private async refreshShared(): Promise<void> {
    const { rows } = await this.options.pool.query<{ cursor: number; highestId: number; passes: number; lastSuccessAt: Date | null }>(READ_STATE);
    const row = rows[0];
    if (!row) return;
    if (row.lastSuccessAt) this.lastSuccessAt = Math.max(this.lastSuccessAt ?? 0, row.lastSuccessAt.getTime());
    if (this.state !== 'syncing') Object.assign(this.progressState, { cursor: row.cursor, highestId: row.highestId, passes: row.passes });
  }

  /** Waits `ms`, or less when woken (nudge, stop). */
  private async sleep(ms: number): Promise<void> {
    if (!this.running || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const wake = () => { clearTimeout(timer); this.wakers.delete(wake); resolve(); };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (await this.holdLock()) await this.crawl();
      } catch (error) {
        if (!this.running) break;
        this.count(error);
        this.options.warn('legacy sync stopped; it resumes in an interval', error);
      }
      await this.sleep(this.options.intervalMs);
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
        this.wakeUp();
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

  /** The highest id such that every new product up to it is done (what a restart may resume from). */
  private settledHighest(): number {
    let lowest = Infinity;
    for (const id of this.discovering) lowest = Math.min(lowest, id);
    return Math.max(this.progressState.highestId, lowest === Infinity ? this.discoveredUpTo : lowest - 1);
  }

  private async saveState(): Promise<void> {
    this.savedAt = Date.now();
    const p = this.progressState;
    p.highestId = this.settledHighest();
    const last = this.options.client.stats().lastSuccessAt;
    await this.options.pool.query(
      'UPDATE legacy_sync_state SET cursor = $1, highest_id = greatest(highest_id, $2), passes = greatest(passes, $3), last_success_at = greatest(last_success_at, $4::timestamptz), updated_at = now() WHERE id = 1',
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
   * Rounds, carried out by the workers until the sync stops, loses the lock,
   * or fails (the legacy service unreachable, the breaker open, the database):
   * then the workers finish what they hold and this throws the failure.
   */
  private async crawl(): Promise<void> {
    const pool = this.options.pool;
    await pool.query(STATE_ROW);
    const { rows: state } = await pool.query<{ cursor: number; highestId: number; passes: number }>(READ_STATE);
    Object.assign(this.progressState, state[0] ?? {});
    if (this.progressState.highestId === 0) {
      // A copy loaded from the CSV export: new products are the ones past it.
      const { rows } = await pool.query<{ max: number | null }>('SELECT max(id) AS max FROM products');
      this.progressState.highestId = rows[0]?.max ?? 0;
    }
    this.discovering.clear();
    this.fetchingNew.clear();
    this.discoveredUpTo = this.progressState.highestId;
    let failure: unknown;
    const fail = (error: unknown) => {
      failure ??= error;
      this.wakeUp();
    };
    const plan = this.rounds(() => failure !== undefined);
    const worker = async () => {
      while (this.running && this.lockClient && failure === undefined) {
        let next: IteratorResult<Item>;
        try {
          next = await plan.next();
        } catch (error) {
          fail(error);
          return;
        }
        if (next.done) return;
        await this.work(next.value).catch(fail);
      }
    };
    const workers = 2 * this.options.maxConcurrency + 4;
    await Promise.all(Array.from({ length: workers }, worker));
    await this.saving;
    await this.saveState().catch(() => {});
    if (failure !== undefined && !(failure instanceof StopRound)) throw failure;
  }

  /** Verifies one planned product; a product the legacy service answers badly is skipped (tried first next round), anything else stops the crawl. */
  private async work(item: Item): Promise<void> {
    const { id, kind } = item;
    this.inProgress.add(id);
    let done = false;
    try {
      // With traces on, each verification is a trace of its own (sampled as requests are): its legacy requests and statements.
      await inRootSpan('legacy.sync.verify', { 'catalogue.legacy.sync.kind': kind }, () => this.verify(id, kind === 'discovered' ? () => this.fetchedNew(id) : undefined));
      done = true;
    } catch (error) {
      // One product the legacy service answers badly (a 500 after the retries,
      // a body that is not the contract's) must not stop the crawl at it.
      // Unreachable, breaker open, a database failure: the crawl stops, and
      // the product is tried first when it resumes (a new one is found again).
      if (!(error instanceof HttpAnswerError || error instanceof SnapshotFormatError)) {
        if (kind !== 'discovered') this.options.recent.add(id);
        throw error;
      }
      this.count(error);
      this.options.warn(`legacy sync skipped product ${id}`, error);
      this.options.recent.add(id);
      done = true;
    } finally {
      this.fetchedNew(id);
      this.inProgress.delete(id);
      if (done) this.discovering.delete(id);
      if (this.askedAgain.delete(id)) this.options.recent.add(id);
    }
    item.round[kind]++;
    // Related products that arrived while this one was being applied: their arrival did not see it waiting yet.
    const waiting = this.incomplete.get(id);
    if (waiting) {
      const { rows } = await this.options.pool.query<{ id: number }>(PRESENT, [[...waiting.missing]]);
      await this.found(id, rows.map((row) => row.id));
    }
    this.persist();
  }

  /**
   * Stores the state soon, without waiting: it is for a restart and for the
   * other instances' X-Source-Age (whole seconds), so once a second is
   * enough, and no worker (nor the planning of the next product) waits for it.
   */
  private persist(): void {
    if (this.saving || Date.now() - this.savedAt < 1000) return;
    this.saving = this.saveState().catch((error: unknown) => this.options.warn('could not store the legacy sync state', error)).finally(() => { this.saving = undefined; });
  }

  /** A new product's legacy answers are all in (or it was given up): re-verification may start once none is left. */
  private fetchedNew(id: number): void {
    if (this.fetchingNew.delete(id) && this.fetchingNew.size === 0) this.wakeUp();
  }

  /**
   * The sync's transactions take at most APPLYING connections of the API's
   * pool at once, however many products are fetched at once; the rest of the
   * pool serves the API.
   */
  private async applying<T>(apply: () => Promise<T>): Promise<T> {
    if (this.applyingNow >= APPLYING) await new Promise<void>((resolve) => this.applyQueue.push(resolve));
    else this.applyingNow++;
    try {
      return await apply();
    } finally {
      const next = this.applyQueue.shift();
      if (next) next();
      else this.applyingNow--;
    }
  }

  /**
   * Reads product `id` from the legacy service (3 requests; 1 when it is
   * gone) and applies it; keeps its snapshot when related products are
   * missing here, and completes the products that were waiting for it.
   */
  async verify(id: number, fetchedAll?: () => void): Promise<void> {
    const readBefore = await this.options.service.localVersion(id);
    const fetched = await fetchSnapshot((path) => this.get(path), id);
    fetchedAll?.();
    const result = await this.applying(() => this.options.service.applySourceProduct(id, fetched, readBefore));
    this.progressState.verified++;
    this.progressState.applied[result.outcome === 'absent' ? 'deleted' : result.outcome]++;
    if (result.outcome === 'superseded') {
      // Written here while the legacy service was read: read it again next round.
      this.options.recent.add(id);
      return;
    }
    // This snapshot replaces whatever an older one of this product waited for.
    this.forgetIncomplete(id);
    if (fetched && result.missingRelated.length > 0) this.waitFor(id, fetched, result);
    if (result.outcome === 'created') await this.arrived(id);
  }

  private waitFor(id: number, snapshot: SourceSnapshot, result: SourceApplyResult): void {
    const missing = new Set(result.missingRelated);
    this.incomplete.set(id, { missing, snapshot, version: result.written?.product.version ?? null });
    for (const lacked of missing) {
      let waiters = this.lacking.get(lacked);
      if (!waiters) this.lacking.set(lacked, (waiters = new Set()));
      waiters.add(id);
    }
  }

  private forgetIncomplete(id: number): Incomplete | undefined {
    const entry = this.incomplete.get(id);
    if (!entry) return undefined;
    this.incomplete.delete(id);
    for (const lacked of entry.missing) {
      const waiters = this.lacking.get(lacked);
      waiters?.delete(id);
      if (waiters?.size === 0) this.lacking.delete(lacked);
    }
    return entry;
  }

  /** Product `id` is here now: the incomplete products that lacked it lack it no more (those being verified right now see it themselves). */
  private async arrived(id: number): Promise<void> {
    for (const waiter of [...(this.lacking.get(id) ?? [])]) {
      if (!this.inProgress.has(waiter)) await this.found(waiter, [id]);
    }
  }

  /** Related products an incomplete one lacked are here: once it lacks none, it is applied again (one transaction, however many it lacked). */
  private async found(id: number, present: number[]): Promise<void> {
    const entry = this.incomplete.get(id);
    if (!entry) return;
    for (const arrived of present) {
      entry.missing.delete(arrived);
      const waiters = this.lacking.get(arrived);
      waiters?.delete(id);
      if (waiters?.size === 0) this.lacking.delete(arrived);
    }
    if (entry.missing.size === 0) await this.complete(id);
  }

  /** Applies an incomplete product's snapshot again, with the related products that are here now; no legacy request. */
  private async complete(id: number): Promise<void> {
    // Taken out first: a concurrent arrival finds nothing to do.
    const entry = this.forgetIncomplete(id);
    if (!entry) return;
    let result: SourceApplyResult;
    try {
      result = await this.applying(() => this.options.service.applySourceProduct(id, entry.snapshot, entry.version));
    } catch (error) {
      this.options.warn(`legacy sync could not complete product ${id}; it is verified again`, error);
      this.options.recent.add(id);
      return;
    }
    this.progressState.applied.completed++;
    // Written since (a write through the sidecar, or its own verification): that write is newer.
    if (result.outcome === 'superseded') return;
    if (result.missingRelated.length > 0) this.waitFor(id, entry.snapshot, result);
  }

  /** Round after round, one product at a time, until the sync stops or `failed()`. */
  private async *rounds(failed: () => boolean): AsyncGenerator<Item, void, undefined> {
    const discovery = new Discovery();
    while (this.running && this.lockClient && !failed()) {
      const started = Date.now();
      const round: RoundStats = { priority: 0, discovered: 0, window: 0 };
      const budget = Math.max(REQUESTS_PER_PRODUCT, Math.floor((this.options.maxRps * this.options.intervalMs) / 1000));
      const plan = { used: 0, full: false };
      yield* this.round(round, budget, plan, discovery, failed);
      this.progressState.rounds++;
      this.progressState.lastRound = { at: new Date(started).toISOString(), requests: plan.used, ...round, ms: Date.now() - started };
      this.persist();
      // Out of work before the budget: the next round an interval after this one started.
      const idleMs = started + this.options.intervalMs - Date.now();
      if (!plan.full && idleMs > 0) {
        this.progressState.roundWaits.count++;
        this.progressState.roundWaits.firstAt ??= new Date().toISOString();
        await this.sleep(idleMs);
      }
    }
  }

  /** One round's products; `plan.full` when it stopped because its budget was spent (there is more to do). */
  private async *round(round: RoundStats, budget: number, plan: { used: number; full: boolean }, discovery: Discovery, failed: () => boolean): AsyncGenerator<Item, void, undefined> {
    const { recent, pool, pageSize } = this.options;
    const p = this.progressState;
    const fits = (requests: number) => {
      if (plan.used + requests <= budget) return true;
      plan.full = true;
      return false;
    };
    const seen = new Set<number>();
    const take = (id: number, kind: RoundKind): Item => {
      seen.add(id);
      plan.used += REQUESTS_PER_PRODUCT;
      return { id, kind, round };
    };
    // (c) recently requested products: at most half the round.
    for (const id of recent.take(Math.max(1, Math.floor(budget / (2 * REQUESTS_PER_PRODUCT))))) {
      if (this.inProgress.has(id)) this.askedAgain.add(id);
      else if (fits(REQUESTS_PER_PRODUCT)) yield take(id, 'priority');
      else recent.add(id);
    }
    // (a) new products past the highest id known.
    if (discovery.caughtUp && discovery.ids.length === 0) discovery.reset();
    while (this.running) {
      const id = discovery.ids.shift();
      if (id !== undefined) {
        if (id <= this.discoveredUpTo) continue;
        if (!fits(REQUESTS_PER_PRODUCT)) {
          discovery.ids.unshift(id);
          return;
        }
        this.discoveredUpTo = id;
        if (this.inProgress.has(id) || seen.has(id)) continue;
        this.discovering.add(id);
        this.fetchingNew.add(id);
        yield take(id, 'discovered');
        continue;
      }
      if (discovery.caughtUp) break;
      if (!fits(1)) return;
      if (discovery.page === undefined) {
        const { rows: counted } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM products WHERE id <= $1', [this.discoveredUpTo]);
        discovery.probe(Number(counted[0]?.n ?? 0), pageSize);
      }
      const page = discovery.page!;
      const count = discovery.count;
      const answer = await this.get(`/products?page=${page}&count=${count}`);
      plan.used++;
      if (answer.status !== 200) throw new HttpAnswerError('GET /products', answer.status);
      const items = answer.json<{ id: number }[]>();
      if (!Array.isArray(items)) throw new SnapshotFormatError(0, 'listing');
      // Deletions there moved our last product to an earlier page (or the
      // listing now ends before this page): look there. Back 1, 2, 4, ...
      // pages (a request each), at most 6 times, until the page that holds
      // the highest id known is found.
      if (!discovery.located && page > 1 && discovery.stepsBack < 6 && (items.length === 0 || items[0]!.id > this.discoveredUpTo)) {
        discovery.page = Math.max(1, page - 2 ** discovery.stepsBack);
        discovery.stepsBack++;
        continue;
      }
      discovery.located = true;
      discovery.ids = items.map((item) => item?.id).filter((itemId) => Number.isSafeInteger(itemId) && itemId > this.discoveredUpTo);
      if (items.length < count) discovery.caughtUp = true;
      else discovery.page = page + 1;
    }
    this.persist();
    // The new products handed out are fetched first: re-verifying the known
    // ones now would only share the legacy service with them.
    while (this.fetchingNew.size > 0 && this.running && this.lockClient && !failed()) await this.sleep(this.options.intervalMs);
    // (b) the rolling window: the next known products after the cursor, wrapping around once a round.
    let room = Math.floor((budget - plan.used) / REQUESTS_PER_PRODUCT);
    let wrapped = false;
    while (room > 0 && this.running) {
      const { rows } = await pool.query<{ id: number }>('SELECT id FROM products WHERE id > $1 ORDER BY id LIMIT $2', [p.cursor, room]);
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
        p.cursor = id;
        if (seen.has(id) || this.inProgress.has(id)) continue;
        room--;
        yield take(id, 'window');
      }
    }
    if (room === 0) plan.full = true;
  }
}

/**
 * The first listing page to read for new products when `known` products are
 * here: the one holding the last of them, in pages of `pageSize` or, when the
 * last one would end such a page, of the largest size below it that it does
 * not end, so that the page also holds the place after it: when that page
 * comes back short there is nothing new, in one request (a full page would
 * need the next one to tell).
 */
export function probePage(known: number, pageSize: number): { page: number; count: number } {
  let count = pageSize;
  while (known > 0 && count > 1 && known % count === 0) count--;
  if (known > 0 && known % count === 0) count = pageSize;
  return { page: Math.max(1, Math.ceil(known / count)), count };
}

/** Where the search for new products is: the listing page to read next and the new ids of the last one read. */
class Discovery {
  /** The next listing page to read; undefined: the one holding the highest id known (computed from the local count). */
  page: number | undefined;
  /** Products per listing page read. */
  count = 1;
  /** New ids of the last page read, not handed out yet. */
  ids: number[] = [];
  /** The last page read was the listing's last: no new products until the next round probes again. */
  caughtUp = false;
  /** The page holding the highest id known has been found (no more stepping back). */
  located = false;
  stepsBack = 0;

  /** Reads from the page holding the last of the `known` products here (probePage). */
  probe(known: number, pageSize: number): void {
    Object.assign(this, probePage(known, pageSize));
  }

  /** Probes again from the page holding the highest id known. */
  reset(): void {
    this.page = undefined;
    this.ids = [];
    this.caughtUp = false;
    this.located = false;
    this.stepsBack = 0;
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

