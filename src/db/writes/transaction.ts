// Every catalogue write runs through here: one transaction at READ COMMITTED
// (Postgres's default), whose work locks the product row it changes before
// anything else (src/catalog/writes/write-statements.ts). Concurrent writes of one
// product therefore wait their turn on that lock, each for at most
// `lock_timeout` (DATABASE_LOCK_TIMEOUT_MS, a session setting of every pooled
// connection), instead of failing and being retried: under load, retries of
// SERIALIZABLE transactions ran out and clients saw 500s.
//
// What can still abort a transaction is retried from the start a bounded
// number of times: a deadlock (40P01; the API's own writes lock in one order,
// but other sessions need not), a serialization failure (40001, should an
// operator make SERIALIZABLE the default), or whatever the caller's
// `retryAlso` accepts (an idempotency key taken by a concurrent create). When
// the lock wait or the retries run out, the caller gets WriteContention: the
// client's answer is a 503 with Retry-After, never a 500.
//
// The transactions run on a connection of the API's own `pg` pool, not
// through Prisma's interactive transactions, TypedSQL included: the same
// write (lock, rename, replace the features) through $transaction and
// $queryRawTyped took 2.6x the Node CPU and ran at 0.82x the rate
// (`node scripts/typedsql-vs-pg.ts`, docs/architecture.md); the route held
// near 320 writes/s that way. Here each statement is named, so parsed and
// planned once per connection.
import type pg from 'pg';
import { hasErrorCode } from '../failures/error-layers.ts';

/** A named prepared statement: `name` identifies its text on every connection. */
export interface Statement {
  name: string;
  text: string;
}

/** What a transaction's work may do: run statements on the transaction's connection. */
export interface TransactionClient {
  /** Runs `statement` with `values`; the rows. */
  query<Row>(statement: Statement, values: unknown[]): Promise<Row[]>;
  /** The rows of the run's `opening` statement (empty without one). */
  readonly opened: Record<string, unknown>[];
}

export interface RunOptions {
  /** Also run again after an error this accepts (besides deadlocks and serialization failures). */
  retryAlso?: (error: unknown) => boolean;
  /**
   * A statement without parameters sent in the same message as BEGIN (one
   * round trip instead of two; its rows are `tx.opened`): a write's row lock.
   * Values in it must be literals the caller made safe (integers).
   */
  opening?: string;
}

const CONFLICT_CODES = new Set(['40001', '40P01', 'P2034']);
/** lock_not_available: lock_timeout expired. */
const LOCK_TIMEOUT_CODES = new Set(['55P03']);

/** A serialization failure or deadlock: the transaction can simply run again. */
export function isWriteConflict(error: unknown): boolean {
  return hasErrorCode(error, CONFLICT_CODES);
}

/** The wait for a row lock outlasted lock_timeout. */
export function isLockTimeout(error: unknown): boolean {
  return hasErrorCode(error, LOCK_TIMEOUT_CODES);
}

/** How long a client should wait before trying a contended write again. */
export const CONTENTION_RETRY_AFTER_SECONDS = 1;

/**
 * Too many concurrent writes of the same rows to finish within the bounds:
 * nothing was written; the client may try again (503 with Retry-After).
 */
export class WriteContention extends Error {
  /** Seconds the client should wait before sending the write again. */
  readonly retryAfterSeconds: number = CONTENTION_RETRY_AFTER_SECONDS;

  constructor(what: string, cause: unknown, message = `${what} is being changed by other requests right now; nothing was written, try again shortly`) {
    super(message, { cause });
    this.name = 'WriteContention';
  }
}

/**
 * The advisory lock a `data:load` holds exclusively from its start to its
 * swap's commit (src/etl/load/load.ts), and every write transaction shares
 * for its own life: a load replaces every catalogue table with the files', so
 * a write committed during it would be acknowledged, then undone at the
 * swap. Writes are refused instead; a load killed mid-way ends its session,
 * and Postgres drops the lock with it.
 */
export const CATALOGUE_WRITES_LOCK = 72707371;
/** Sent with every write's BEGIN: false while a load holds CATALOGUE_WRITES_LOCK (or waits for it). */
const WRITABLE = `SELECT pg_try_advisory_xact_lock_shared(${CATALOGUE_WRITES_LOCK}) AS writable`;

/** How long a client should wait before sending a write refused during a reload (a full-scale load takes minutes). */
export const RELOAD_RETRY_AFTER_SECONDS = 30;

/** A `data:load` is replacing the catalogue: nothing was written (503 with Retry-After). */
export class CatalogueReloading extends WriteContention {
  override readonly retryAfterSeconds = RELOAD_RETRY_AFTER_SECONDS;

  constructor() {
    super('the catalogue', undefined, `the catalogue is being reloaded (data:load): writes are refused until the new catalogue is swapped in; nothing was written, try again in ${RELOAD_RETRY_AFTER_SECONDS} s`);
    this.name = 'CatalogueReloading';
  }
}

export interface TransactionSettings {
  /** Runs in all, the first included. */
  maxAttempts: number;
  /** Retry n waits a random time up to baseDelayMs * 2^(n-1) ("full jitter"), at most maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_TRANSACTION_SETTINGS: TransactionSettings = { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 200 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Transactions {
  /** Retries so far (operators: a steady rise means contention on the same rows). */
  retries = 0;
  private readonly pool: pg.Pool;
  private readonly settings: TransactionSettings;

  constructor(pool: pg.Pool, settings: TransactionSettings = DEFAULT_TRANSACTION_SETTINGS) {
    this.pool = pool;
    this.settings = settings;
  }

  /**
   * Runs `work` in a transaction, again from the start after a deadlock or
   * serialization failure (or an error `retryAlso` accepts), up to maxAttempts
   * runs; a lock wait past lock_timeout, or retries run out, become
   * WriteContention naming `what`. `work` must only write through `tx`:
   * anything else it did would be done twice. Every wait is bounded by the
   * pool (checkout), statement_timeout and lock_timeout.
   */
  async run<T>(what: string, work: (tx: TransactionClient) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(work, options.opening);
      } catch (error) {
        if (error instanceof CatalogueReloading) throw error;
        if (isLockTimeout(error)) throw new WriteContention(what, error);
        const retryable = isWriteConflict(error) || (options.retryAlso?.(error) ?? false);
        if (!retryable) throw error;
        if (attempt >= maxAttempts) throw new WriteContention(what, error);
        this.retries++;
        await sleep(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
      }
    }
  }

  private async once<T>(work: (tx: TransactionClient) => Promise<T>, opening: string | undefined): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      // Several statements in one simple-protocol message: each its own result, in order.
      const begun = await client.query(`BEGIN; ${WRITABLE}${opening === undefined ? '' : `; ${opening}`}`) as unknown as pg.QueryResult[];
      if (begun[1]?.rows[0]?.writable !== true) throw new CatalogueReloading();
      const tx: TransactionClient = {
        query: async <Row>({ name, text }: Statement, values: unknown[]) => (await client.query({ name, text, values })).rows as Row[],
        opened: begun[2]?.rows ?? [],
      };
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back leaves the pool.
      await client.query('ROLLBACK').catch((rollbackError: unknown) => { broken = rollbackError as Error; });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
