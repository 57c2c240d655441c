// Spreads catalogue reads over streaming read replicas (DATABASE_REPLICA_URLS)
// without ever answering a read from before a write this instance has made or
// heard of:
//
// - After each committed write the primary's WAL position is recorded
//   (recordWrite, one statement on the primary) and, with Redis, raised in a
//   key every instance reads (shared-write-position.ts).
// - A read goes to a replica, round robin, only if its last reported replay
//   position has reached the latest write position; otherwise to the primary.
//   A replica found behind is asked again at once in the background (at most
//   every ON_DEMAND_CHECK_MS), so it serves again a moment after it catches up,
//   and every replica is polled every DATABASE_REPLICA_CHECK_MS.
// - A replica whose read fails is skipped (that read is retried on the
//   primary, so the client sees no error) until a check answers again.
// - The choice is made once per request and kept for its other statements, so
//   one response never mixes two replicas' moments in time, and the shared
//   position costs one Redis read per request that reads the database. A
//   write within the request makes the next read choose again.
import type pg from 'pg';
import type { Lsn } from './wal-position.ts';
import { formatLsn, parseLsn } from './wal-position.ts';
import type { StatementCounter } from '../pool/pool.ts';
import { type ReadRoute, type Reads, withClient } from './read-routes.ts';
import type { Replica, ReplicaStatus } from './replica.ts';
import type { SharedWritePosition } from './shared-write-position.ts';

/** A replica found behind a write is asked again at most this often. */
const ON_DEMAND_CHECK_MS = 10;

export interface ReadRouterOptions {
  primary: pg.Pool;
  replicas: Replica[];
  statements: StatementCounter;
  checkIntervalMs: number;
  /** The write position shared by every instance (Redis); undefined: this instance's writes only. */
  shared?: SharedWritePosition;
  warn(message: string, error?: unknown): void;
}

export interface ReadRouterStatus {
  /** Reads answered by a replica, by the primary, and replica reads that failed and were answered by the primary. */
  reads: { replica: number; primary: number; fallbacks: number };
  /** Latest write position this instance knows of (its own writes). */
  latestWrite: string | null;
  servers: ReplicaStatus[];
}

interface Choice {
  /** The latest write known when the choice was made. */
  knownWrite: Lsn;
  replica: Promise<Replica | undefined>;
}

export class ReadRouter implements Reads {
  private readonly primary: pg.Pool;
  private readonly replicas: Replica[];
  private readonly statements: StatementCounter;
  private readonly shared: SharedWritePosition | undefined;
  private readonly warn: ReadRouterOptions['warn'];
  private readonly reads = { replica: 0, primary: 0, fallbacks: 0 };
  private latestWrite: Lsn = 0n;
  /** A write committed but its position could not be read: every read goes to the primary until it is. */
  private positionUnknown = false;
  private nextReplica = 0;
  private readonly choices = new WeakMap<object, Choice>();
  private readonly timer: NodeJS.Timeout;

  /** Each replica's connection pool by name (for the pool metrics). */
  get replicaPools(): Record<string, pg.Pool> {
    return Object.fromEntries(this.replicas.map((replica) => [replica.name, replica.pool]));
  }

  constructor(options: ReadRouterOptions) {
    this.primary = options.primary;
    this.replicas = options.replicas;
    this.statements = options.statements;
    this.shared = options.shared;
    this.warn = options.warn;
    for (const replica of this.replicas) this.replicaRoutes.set(replica, this.replicaRoute(replica));
    this.timer = setInterval(() => void this.poll(), options.checkIntervalMs);
    this.timer.unref();
  }

  /** Checks every replica once (at start-up, so reads use them from the first request). */
  async start(): Promise<void> {
    await this.poll();
    for (const replica of this.replicas) {
      if (!replica.healthy) this.warn(`read replica ${replica.name} is not available yet; reads go to the primary until it is`, replica.status().error);
    }
  }

  private async poll(): Promise<void> {
    await this.statements.uncharged(async () => {
      if (this.positionUnknown) await this.recordWrite().catch(() => {});
      await this.shared?.retry().catch(() => {});
      await Promise.all(this.replicas.map((replica) => replica.check()));
    });
  }

  /**
   * After a committed write, before it is answered (and before the response
   * cache is invalidated, so no read after the invalidation can miss it):
   * replicas serve this instance's reads again only once they replayed it.
   */
  async recordWrite(): Promise<void> {
    try {
      const { rows } = await withClient(this.primary, (client) => client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'));
      const lsn = parseLsn(rows[0]!.lsn);
      if (lsn > this.latestWrite) this.latestWrite = lsn;
      this.positionUnknown = false;
    } catch (error) {
      // The write is committed; it is only its position that is unknown.
      if (!this.positionUnknown) this.warn('could not read the write position from the primary; reads go to the primary until it can', error);
      this.positionUnknown = true;
      return;
    }
    await this.shared?.publish(this.latestWrite).catch((error: unknown) => {
      this.warn('could not share the write position through Redis (retrying); other instances may read older data from replicas meanwhile', error);
    });
  }

  /** The primary's route, or the chosen replica's (which falls back to the primary when its read fails). */
  async route(): Promise<ReadRoute> {
    const replica = await this.choose();
    return replica ? this.replicaRoutes.get(replica)! : this.primaryRoute;
  }

  private readonly primaryRoute: ReadRoute = {
    run: (work) => {
      this.reads.primary++;
      return withClient(this.primary, work);
    },
  };

  private readonly replicaRoutes = new Map<Replica, ReadRoute>();

  private replicaRoute(replica: Replica): ReadRoute {
    return {
      run: async (work) => {
        try {
          const result = await withClient(replica.pool, work);
          this.reads.replica++;
          return result;
        } catch (error) {
          // Down, restarting, or a query cancelled by a recovery conflict: the
          // primary answers this read, and the replica rests until a check answers.
          replica.failed(error);
          this.reads.fallbacks++;
          return this.primaryRoute.run(work);
        }
      },
    };
  }

  /** The replica for this read (undefined: the primary), the same for every read of one request. */
  private async choose(): Promise<Replica | undefined> {
    const request = this.statements.current();
    const previous = request && this.choices.get(request);
    if (previous && previous.knownWrite === this.latestWrite) {
      const replica = await previous.replica;
      if (!replica || replica.healthy) return replica;
    }
    const choice: Choice = { knownWrite: this.latestWrite, replica: this.pick() };
    if (request) this.choices.set(request, choice);
    return choice.replica;
  }

  private async pick(): Promise<Replica | undefined> {
    if (this.positionUnknown || !this.replicas.some((replica) => replica.healthy)) return undefined;
    const required = await this.requiredPosition();
    if (required === undefined) return undefined;
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.nextReplica + i) % this.replicas.length]!;
      if (!replica.healthy) continue;
      if (replica.replayed >= required) {
        this.nextReplica = (this.nextReplica + i + 1) % this.replicas.length;
        return replica;
      }
      if (Date.now() - replica.checkedAt >= ON_DEMAND_CHECK_MS) void this.statements.uncharged(() => replica.check());
    }
    return undefined;
  }

  /** The position a replica must have replayed; undefined when unknown (Redis did not answer). */
  private async requiredPosition(): Promise<Lsn | undefined> {
    if (!this.shared) return this.latestWrite;
    const shared = await this.shared.latest();
    if (shared === undefined) return undefined;
    return shared > this.latestWrite ? shared : this.latestWrite;
  }

  status(): ReadRouterStatus {
    return {
      reads: { ...this.reads },
      latestWrite: this.latestWrite > 0n ? formatLsn(this.latestWrite) : null,
      servers: this.replicas.map((replica) => replica.status()),
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => {})));
  }
}
