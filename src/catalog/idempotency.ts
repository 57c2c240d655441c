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
import type { Prisma } from '../db/prisma.ts';
import type { TransactionClient } from '../db/transaction.ts';
import { canonicalJson } from '../util/canonical-json.ts';
import { ValidationError, type ProductWrite } from './validation.ts';

/** Visible ASCII, as the IETF Idempotency-Key draft's examples (UUIDs, random tokens); long enough for any of them. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

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
  private readonly prisma: Prisma;
  private readonly ttlMs: number;
  private lastSweep = 0;

  constructor(prisma: Prisma, ttlSeconds: number) {
    this.prisma = prisma;
    this.ttlMs = ttlSeconds * 1000;
  }

  /**
   * The product an unexpired `key` created, if any; throws IdempotencyKeyReused
   * when it was created from other content. An expired key is forgotten here.
   */
  async find(tx: TransactionClient, key: string, requestHash: string, now: Date): Promise<number | undefined> {
    const stored = await tx.idempotencyKey.findUnique({ where: { key } });
    if (!stored) return undefined;
    if (stored.expiresAt <= now) {
      await tx.idempotencyKey.delete({ where: { key } });
      return undefined;
    }
    if (stored.requestHash !== requestHash) throw new IdempotencyKeyReused(key);
    return stored.productId;
  }

  async remember(tx: TransactionClient, key: string, requestHash: string, productId: number, now: Date): Promise<void> {
    await tx.idempotencyKey.create({ data: { key, requestHash, productId, expiresAt: new Date(now.getTime() + this.ttlMs) } });
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
    this.outsideRequests.runInAsyncScope(() => this.prisma.idempotencyKey.deleteMany({ where: { expiresAt: { lte: new Date(now) } } }))
      .catch(() => { this.lastSweep = 0; });
  }
}

/** A unique violation on the key itself: a concurrent create with the same key committed first. */
export function isKeyTaken(error: unknown): boolean {
  const record = error as { code?: unknown; meta?: { modelName?: unknown } } | null;
  return record?.code === 'P2002' && record.meta?.modelName === 'IdempotencyKey';
}
