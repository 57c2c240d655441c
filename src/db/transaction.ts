// Every catalogue write runs through here: one transaction at READ COMMITTED
// (Postgres's default), whose work locks the product row it changes before
// anything else (src/catalog/write-statements.ts). Concurrent writes of one
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
import type { Prisma as PrismaNamespace } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import { hasErrorCode } from './error-layers.ts';
import type { Prisma } from './prisma.ts';

export type TransactionClient = PrismaNamespace.TransactionClient;

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
  constructor(what: string, cause: unknown) {
    super(`${what} is being changed by other requests right now; nothing was written, try again shortly`, { cause });
    this.name = 'WriteContention';
  }
}

export interface TransactionSettings {
  /** Runs in all, the first included. */
  maxAttempts: number;
  /** Retry n waits a random time up to baseDelayMs * 2^(n-1) ("full jitter"), at most maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long Prisma waits to start the transaction (keep it above the pool's own bound, so the pool's error wins). */
  maxWaitMs: number;
  /** How long the whole transaction may take. */
  timeoutMs: number;
}

export const DEFAULT_TRANSACTION_SETTINGS: TransactionSettings = { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 200, maxWaitMs: 5_000, timeoutMs: 10_000 };

/**
 * Limits that follow the pool's: Prisma waits for a connection longer than
 * the pool would (so the pool's timeout, a 503, is what callers see), and a
 * transaction may take two statement timeouts (a lock wait plus the rest).
 */
export function transactionSettings(config: Pick<Config, 'databaseConnectTimeoutMs' | 'databasePoolQueueTimeoutMs' | 'databaseStatementTimeoutMs'>): TransactionSettings {
  return {
    ...DEFAULT_TRANSACTION_SETTINGS,
    maxWaitMs: config.databasePoolQueueTimeoutMs + config.databaseConnectTimeoutMs + 1_000,
    timeoutMs: 2 * config.databaseStatementTimeoutMs,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Transactions {
  /** Retries so far (operators: a steady rise means contention on the same rows). */
  retries = 0;
  /** Writes given up as WriteContention. */
  contended = 0;
  private readonly prisma: Prisma;
  private readonly settings: TransactionSettings;

  constructor(prisma: Prisma, settings: TransactionSettings = DEFAULT_TRANSACTION_SETTINGS) {
    this.prisma = prisma;
    this.settings = settings;
  }

  /**
   * Runs `work` in a transaction, again from the start after a deadlock or
   * serialization failure (or an error `retryAlso` accepts), up to maxAttempts
   * runs; a lock wait past lock_timeout, or retries run out, become
   * WriteContention naming `what`. `work` must only write through `tx`:
   * anything else it did would be done twice.
   */
  async run<T>(what: string, work: (tx: TransactionClient) => Promise<T>, options: { retryAlso?: (error: unknown) => boolean } = {}): Promise<T> {
    const { maxAttempts, baseDelayMs, maxDelayMs, maxWaitMs, timeoutMs } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prisma.$transaction(work, { maxWait: maxWaitMs, timeout: timeoutMs });
      } catch (error) {
        if (isLockTimeout(error)) {
          this.contended++;
          throw new WriteContention(what, error);
        }
        const retryable = isWriteConflict(error) || (options.retryAlso?.(error) ?? false);
        if (!retryable) throw error;
        if (attempt >= maxAttempts) {
          this.contended++;
          throw new WriteContention(what, error);
        }
        this.retries++;
        await sleep(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
      }
    }
  }
}
