// Writes to the catalogue. Each runs in one transaction (src/db/writes/transaction.ts)
// that first locks the product row it changes, then writes in one statement
// (src/catalog/write-statements.ts); after it commits, listeners (the
// response cache, listing pages, read replicas' positions) hear which
// products changed. Every write answers with what it wrote, read in the same
// statement: no second read that a replica or a cache could answer older.
// Each also announces its change in its transaction (NOTIFY, delivered on
// commit), so every instance hears it (src/cache/change-feed.ts): creates and
// updates in their own statement, deletes (which may touch many products) in
// one more.
import type pg from 'pg';
import { notifyProductsChanged } from '../cache/change-feed.ts';
import { Transactions, type TransactionClient } from '../db/writes/transaction.ts';
import { fingerprint, IdempotencyKeys, KeyTakenMeanwhile } from './idempotency.ts';
import type { Feature, Product } from './types.ts';
import { NotFoundError, type ProductWrite } from './validation.ts';
import { CREATE_PRODUCT, DELETE_PRODUCT, lockProduct, PRODUCT_WITH_FEATURES, UPDATE_PRODUCT } from './write-statements.ts';

export type ProductChange = 'created' | 'updated' | 'deleted';
export type ProductChangeListener = (productIds: number[], change: ProductChange) => Promise<void> | void;

export type ProductCreate = Required<Pick<ProductWrite, 'name' | 'slogan' | 'description' | 'category' | 'defaultPrice'>> & ProductWrite;

/** A product as a write leaves it, with its features. */
export interface WrittenProduct {
  product: Product;
  features: Feature[];
}

export interface CreateResult extends WrittenProduct {
  /** True when an earlier create with the same Idempotency-Key made this product. */
  replayed: boolean;
}

/** The version a conditional write expected (If-Match, expectedVersion): a list of versions, or any ('*'). */
export type ExpectedVersion = readonly string[] | '*';

/** The versions a client expected, for a message: a few at most (a header may list thousands). */
function describeVersions(versions: readonly string[]): string {
  if (versions.length === 0) return 'the version you sent (weak tags never match)';
  const shown = versions.slice(0, 3).map((v) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)).join(', ');
  return `version ${shown}${versions.length > 3 ? ` and ${versions.length - 3} more` : ''}`;
}

/** A conditional write found the product at another version than the client expected. */
/** A conditional write: only at one of `expected` (If-Match), never at one of `excluded` (If-None-Match). */
export interface WriteConditions {
  expected?: ExpectedVersion;
  excluded?: ExpectedVersion;
}

export class VersionMismatch extends Error {
  readonly productId: number;
  readonly currentVersion: string;
  constructor(productId: number, expected: ExpectedVersion, currentVersion: string, message?: string) {
    super(message ?? `product ${productId} has changed since ${describeVersions(expected as readonly string[])}: it is now at version "${currentVersion}"; read it again and reapply your change`);
    this.name = 'VersionMismatch';
    this.productId = productId;
    this.currentVersion = currentVersion;
  }
}

/** A written product as its statement returns it (`announced`: the NOTIFY's empty result, when it sends one). */
type ProductRow = Product & { features: Feature[]; announced?: unknown };

function written(row: ProductRow): WrittenProduct {
  const { features, announced: _announced, ...product } = row;
  return { product, features };
}

export class CatalogService {
  private readonly transactions: Transactions;
  private readonly idempotencyKeys: IdempotencyKeys;
  private readonly listeners: ProductChangeListener[] = [];
  constructor(pool: pg.Pool, options: { idempotencyKeyTtlSeconds?: number } = {}) {
    this.transactions = new Transactions(pool);
    this.idempotencyKeys = new IdempotencyKeys(pool, options.idempotencyKeyTtlSeconds ?? 24 * 3600);
  }

  /** Write transactions run again after deadlocks, serialization failures and idempotency-key races. */
  get transactionRetries(): number {
    return this.transactions.retries;
  }

  onProductsChanged(listener: ProductChangeListener): void {
    this.listeners.push(listener);
  }

  private async changed(ids: number[], change: ProductChange): Promise<void> {
    for (const listener of this.listeners) await listener(ids, change);
  }

  /**
   * The row lock the transaction opened with (lockProduct): NotFoundError
   * when there was no product, VersionMismatch when `expected` names other versions.
   */
  private checkLocked(tx: TransactionClient, id: number, conditions: WriteConditions): void {
    const [row] = tx.opened as { version: string }[];
    if (!row) throw new NotFoundError(`product ${id} not found`);
    const { expected, excluded } = conditions;
    if (expected !== undefined && expected !== '*' && !expected.includes(row.version)) throw new VersionMismatch(id, expected, row.version);
    if (excluded !== undefined && (excluded === '*' || excluded.includes(row.version))) {
      throw new VersionMismatch(id, excluded, row.version, `product ${id} is at version "${row.version}", which If-None-Match excludes: nothing was written`);
    }
  }

  /**
   * Creates a product; with an idempotency key, at most once per key: a repeat
   * (even a concurrent one) answers with the product the first one made.
   */
  async createProduct(write: ProductCreate, options: { idempotencyKey?: string } = {}): Promise<CreateResult> {
    const key = options.idempotencyKey;
    const requestHash = key === undefined ? '' : fingerprint(write);
    const result = await this.transactions.run('this Idempotency-Key', async (tx): Promise<CreateResult> => {
      if (key !== undefined) {
        const earlierId = await this.idempotencyKeys.find(tx, key, requestHash);
        if (earlierId !== undefined) {
          const [earlier] = await tx.query<ProductRow>(PRODUCT_WITH_FEATURES, [earlierId]);
          if (!earlier) throw new NotFoundError(`product ${earlierId}, created with this Idempotency-Key, has been deleted since`);
          return { ...written(earlier), replayed: true };
        }
      }
      const [row] = await tx.query<ProductRow>(CREATE_PRODUCT,
        [write.name, write.slogan, write.description, write.category, write.defaultPrice, JSON.stringify(write.features ?? [])]);
      // A concurrent create with the same key that committed first makes this
      // throw KeyTakenMeanwhile: the transaction rolls back and runs again,
      // and finds that key.
      if (key !== undefined) await this.idempotencyKeys.remember(tx, key, requestHash, row!.id);
      return { ...written(row!), replayed: false };
    }, { retryAlso: (error) => error instanceof KeyTakenMeanwhile });
    if (key !== undefined) this.idempotencyKeys.sweepExpired();
    if (!result.replayed) await this.changed([result.product.id], 'created');
    return result;
  }

  /** Changes the given fields; `features`, when given, replaces the list. `expected`: only if the product is at one of these versions. */
  async updateProduct(id: number, write: ProductWrite, options: WriteConditions = {}): Promise<WrittenProduct> {
    const result = await this.transactions.run(`product ${id}`, async (tx) => {
      this.checkLocked(tx, id, options);
      const [row] = await tx.query<ProductRow>(UPDATE_PRODUCT, [id,
        write.name ?? null, write.slogan ?? null, write.description ?? null, write.category ?? null, write.defaultPrice ?? null,
        write.features ? JSON.stringify(write.features) : null]);
      return written(row!);
    }, { opening: lockProduct(id) });
    await this.changed([id], 'updated');
    return result;
  }

  /** Deletes a product with everything that hangs off it. `expected`: only if the product is at one of these versions. */
  async deleteProduct(id: number, options: WriteConditions = {}): Promise<void> {
    // Products that list this one as related change too (their related rows cascade away).
    const referencing = await this.transactions.run(`product ${id}`, async (tx) => {
      this.checkLocked(tx, id, options);
      const referencing = (await tx.query<{ id: number }>(DELETE_PRODUCT, [id])).map((row) => row.id);
      await notifyProductsChanged(tx, [id, ...referencing], 'deleted');
      return referencing;
    }, { opening: lockProduct(id) });
    await this.changed([id, ...referencing], 'deleted');
  }
}
