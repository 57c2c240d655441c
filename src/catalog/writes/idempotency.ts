// Idempotency keys for creates: a client sends the same key with every retry
// of one create, and however many arrive (one after another or at once), one
// product exists. The key is stored with the product in the same transaction
// (CatalogService.createProduct), with a fingerprint of the validated request:
// the same key with the same content answers with that product, the same key
// with other content is refused (422). The fingerprint is taken after
// validation, so REST and GraphQL spellings of one product ("10" or "10.00",
// default_price or defaultPrice, stray spaces) share a key.
import { AsyncResource } from 'node:async_hooks';
import crypto from 'node:crypto';
import type pg from 'pg';
import type { TransactionClient } from '../../db/writes/transaction.ts';
import { canonicalJson } from '../../util/canonical-json.ts';
import { ValidationError, type ProductWrite } from '../model/validation.ts';
import { FIND_IDEMPOTENCY_KEY, STORE_IDEMPOTENCY_KEY, SWEEP_IDEMPOTENCY_KEYS } from './write-statements.ts';

/** Visible ASCII, as the IETF Idempotency-Key draft's examples (UUIDs, random tokens); long enough for any of them. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const KEY_PATTERN = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export class IdempotencyKeyReused extends Error {
  constructor(key: string) {
    super(`Idempotency-Key "${key}" was already used for a create with different content; send a new key for a new product`);
    this.name = 'IdempotencyKeyReused';
  }
}

/** Checks a key from a header or argument; undefined when none was sent. */
export function parseIdempotencyKey(value: unknown, label: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    throw new ValidationError(label, 'must be 1 to 255 visible ASCII characters (e.g. a UUID), sent once');
  }
  return value;
}

export function fingerprint(write: ProductWrite): string {
  return crypto.createHash('sha256').update(canonicalJson(write)).digest('hex');
}

/** How often expired keys are swept (each create with a key may trigger it, at most this often per process). */
const SWEEP_INTERVAL_MS = 3600_000;

export class IdempotencyKeys {
  private readonly pool: pg.Pool;
  private readonly ttlSeconds: number;
  private lastSweep = 0;

  constructor(pool: pg.Pool, ttlSeconds: number) {
    this.pool = pool;
    this.ttlSeconds = ttlSeconds;
  }

  /**
   * The product an unexpired `key` created, if any; throws IdempotencyKeyReused
   * when it was created from other content. An expired key counts as none
   * (remember() takes it over).
   */
  async find(tx: TransactionClient, key: string, requestHash: string): Promise<number | undefined> {
    const [stored] = await tx.query<{ requestHash: string; productId: number; live: boolean }>(FIND_IDEMPOTENCY_KEY, [key]);
    if (!stored?.live) return undefined;
    if (stored.requestHash !== requestHash) throw new IdempotencyKeyReused(key);
    return stored.productId;
  }

  /**
   * Stores `key` for `productId` in the create's transaction. If a concurrent
   * create stored it first, the insert waits for that transaction and then
   * finds the key taken: KeyTakenMeanwhile (the caller rolls back and looks again).
   */
  async remember(tx: TransactionClient, key: string, requestHash: string, productId: number): Promise<void> {
    const stored = await tx.query(STORE_IDEMPOTENCY_KEY, [key, requestHash, productId, this.ttlSeconds]);
    if (stored.length === 0) throw new KeyTakenMeanwhile();
  }

  // The sweep is housekeeping, not part of the request that happened to
  // trigger it: it runs in the async context this object was created in, so
  // its statement is not counted in that request's x-sql-statements.
  private readonly outsideRequests = new AsyncResource('IdempotencyKeys');

  /** Deletes the expired keys of every create, at most once per SWEEP_INTERVAL_MS; never fails the caller. */
  sweepExpired(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    this.outsideRequests.runInAsyncScope(() => this.pool.query(SWEEP_IDEMPOTENCY_KEYS))
      .catch(() => { this.lastSweep = 0; });
  }
}

/** A concurrent create with the same key committed first: roll back, and find its product. */
export class KeyTakenMeanwhile extends Error {
  constructor() {
    super('the idempotency key was stored by a concurrent create');
    this.name = 'KeyTakenMeanwhile';
  }
}
