// One read replica: its connection pool, whether it answers, and how far it
// has replayed the primary's WAL. The position only grows while the replica
// streams, so any answer is a safe lower bound for routing, however old.
// Down until the first check answers.
import type pg from 'pg';
import { formatLsn, type Lsn, parseLsn } from './wal-position.ts';
import { withClient } from './read-routes.ts';

/** pg-pool's error when every connection of a full pool stayed busy for connectionTimeoutMillis. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

export interface ReplicaStatus {
  /** host:port/database, never the credentials. */
  name: string;
  healthy: boolean;
  /** Last replay position it reported (pg_last_wal_replay_lsn()). */
  replayed: string | null;
  /** Why it is down. */
  error?: string;
}

export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}

export class Replica {
  readonly name: string;
  readonly pool: pg.Pool;
  healthy = false;
  /** Everything up to here is visible on the replica; -1 until it first answers. */
  replayed: Lsn = -1n;
  /** When the last check began (ms since the epoch). */
  checkedAt = 0;
  private error: string | undefined;
  private checking: Promise<void> | undefined;
  private readonly onChange: (replica: Replica, error?: unknown) => void;

  constructor(name: string, pool: pg.Pool, onChange: (replica: Replica, error?: unknown) => void) {
    this.name = name;
    this.pool = pool;
    this.onChange = onChange;
  }

  /** Asks the replica how far it has replayed. Never throws; concurrent callers share one check. */
  check(): Promise<void> {
    this.checking ??= this.ask().finally(() => { this.checking = undefined; });
    return this.checking;
  }

  private async ask(): Promise<void> {
    this.checkedAt = Date.now();
    try {
      const { rows } = await withClient(this.pool, (client) => client.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn'));
      const lsn = rows[0]?.lsn;
      // Null on a server that is not in recovery: a primary, or a promoted
      // replica that no longer follows ours. Neither has "our" writes in order.
      if (!lsn) throw new Error('not a streaming replica: pg_last_wal_replay_lsn() is null (a primary, or promoted)');
      this.replayed = parseLsn(lsn);
      if (!this.healthy) {
        this.healthy = true;
        this.error = undefined;
        this.onChange(this);
      }
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * A read or check failed: skip this replica until a check answers again.
   * Except when its pool had no free connection within the connect timeout:
   * that replica is busy, not down, and only the read that waited moves.
   */
  failed(error: unknown): void {
    if (error instanceof Error && error.message === POOL_WAIT_TIMEOUT) return;
    const wasHealthy = this.healthy;
    this.healthy = false;
    this.error = error instanceof Error ? error.message : String(error);
    if (wasHealthy) this.onChange(this, error);
  }

  status(): ReplicaStatus {
    return {
      name: this.name, healthy: this.healthy,
      replayed: this.replayed < 0n ? null : formatLsn(this.replayed),
      ...(this.error ? { error: this.error } : {}),
    };
  }
}
