// Every catalogue write runs through here: one SERIALIZABLE transaction, run
// again from the start when Postgres aborts it for a serialization failure
// (40001) or a deadlock (40P01), which Prisma reports as P2034. Both mean
// "a concurrent transaction got there first; the same work may succeed now",
// never that the work is wrong, so the caller should not see them.
//
// SERIALIZABLE because the writes read before they write (does the product
// exist? which features to replace? was this idempotency key used?): at READ
// COMMITTED two concurrent feature replacements of one product can both
// delete the old rows and insert theirs, leaving the union. Here the second
// one fails, is retried, and replaces the first one's features.
import type { Prisma as PrismaNamespace } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import { hasErrorCode } from './error-layers.ts';
import type { Prisma } from './prisma.ts';

export type TransactionClient = PrismaNamespace.TransactionClient;

const CONFLICT_CODES = new Set(['40001', '40P01', 'P2034']);

/** A serialization failure or deadlock: the transaction can simply run again. */
export function isWriteConflict(error: unknown): boolean {
  return hasErrorCode(error, CONFLICT_CODES);
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

export const DEFAULT_TRANSACTION_SETTINGS: TransactionSettings = { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 500, maxWaitMs: 5_000, timeoutMs: 10_000 };

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
  private readonly prisma: Prisma;
  private readonly settings: TransactionSettings;

  constructor(prisma: Prisma, settings: TransactionSettings = DEFAULT_TRANSACTION_SETTINGS) {
    this.prisma = prisma;
    this.settings = settings;
  }

  /**
   * Runs `work` in a transaction, again from the start after a write conflict
   * (or an error `retryAlso` accepts), up to maxAttempts runs. `work` must only
   * write through `tx`: anything else it did would be done twice.
   */
  async run<T>(work: (tx: TransactionClient) => Promise<T>, options: { retryAlso?: (error: unknown) => boolean } = {}): Promise<T> {
    const { maxAttempts, baseDelayMs, maxDelayMs, maxWaitMs, timeoutMs } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prisma.$transaction(work, { isolationLevel: 'Serializable', maxWait: maxWaitMs, timeout: timeoutMs });
      } catch (error) {
        const retryable = isWriteConflict(error) || (options.retryAlso?.(error) ?? false);
        if (!retryable || attempt >= maxAttempts) throw error;
        this.retries++;
        await sleep(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
      }
    }
  }
}
