// Writes to the catalogue. Each runs in one transaction (src/db/writes/transaction.ts)
// that first locks the product row it changes, then writes in one statement
// (src/catalog/writes/write-statements.ts); after it commits, listeners (the
// response cache, listing pages, read replicas' positions) hear which
// products changed. Every write answers with what it wrote, read in the same
// statement: no second read that a replica or a cache could answer older.
// Each also announces its change in its transaction (NOTIFY, delivered on
// commit), so every instance hears it (src/cache/change-feed.ts): creates and
// updates in their own statement, deletes (which may touch many products) in
// one more.
import type pg from 'pg';
import { notifyProductsChanged } from '../../cache/change-feed.ts';
import { Transactions, type TransactionClient } from '../../db/writes/transaction.ts';
import { fingerprint, IdempotencyKeys, KeyTakenMeanwhile } from './idempotency.ts';
import type { Feature, Product } from '../model/types.ts';
import { NotFoundError, type ProductWrite } from '../model/validation.ts';
import { CREATE_PRODUCT, DELETE_PRODUCT, lockProduct, PRODUCT_VERSION, PRODUCT_WITH_FEATURES, UPDATE_PRODUCT } from './write-statements.ts';
import {
  DELETE_SOURCE_SKUS, DELETE_SOURCE_STYLES, FORGET_HASH, MOVED_FROM_OTHERS, INSERT_SOURCE_PHOTOS, INSERT_SOURCE_SKUS, INSERT_SOURCE_STYLES,
  LOCAL_SOURCE_VIEW, REPLACE_SOURCE_RELATED, SOURCE_HASH, STORE_HASH, TOUCH_VERIFIED, UPSERT_SOURCE_PRODUCT,
} from './source-statements.ts';
import type { SourceSnapshot } from './source.ts';

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

/** What applySourceProduct did. */
export interface SourceApplyResult {
  /**
   * superseded: written here since the version the caller read before it
   * fetched the snapshot (a write through the sidecar, say), so the snapshot
   * may be older than what is here: nothing was applied; verify it again.
   */
  outcome: 'created' | 'updated' | 'unchanged' | 'deleted' | 'absent' | 'superseded';
  /** The product as it now is locally (not for 'deleted' and 'absent'). */
  written?: WrittenProduct;
  /** Related ids the legacy service showed that do not exist here (yet): those rows were left out. */
  missingRelated: number[];
}

/** Suffix of a stored hash whose related rows were incomplete: it never equals a fresh hash, so the next check rewrites. */
const PARTIAL = ':partial';

/** A written product as its statement returns it (`announced`: the NOTIFY's empty result, when it sends one). */
type ProductRow = Product & { features: Feature[]; announced?: unknown };

function written(row: ProductRow): WrittenProduct {
  const { features, announced: _announced, ...product } = row;
  return { product, features };
}

/**
 * What the APIs write through: the catalogue here (CatalogService), or in
 * sidecar mode the legacy service, read back and applied here
 * (src/sidecar/pass-through-writes.ts). `sourceBody`: the client's own body,
 * for a pass-through to send on as it came.
 */
export interface ProductWrites {
  createProduct(write: ProductCreate, options?: { idempotencyKey?: string; sourceBody?: string }): Promise<CreateResult>;
  updateProduct(id: number, write: ProductWrite, options?: WriteConditions & { sourceBody?: string }): Promise<WrittenProduct>;
  deleteProduct(id: number, options?: WriteConditions): Promise<void>;
}

export class CatalogService implements ProductWrites {
  private readonly transactions: Transactions;
  private readonly idempotencyKeys: IdempotencyKeys;
  private readonly listeners: ProductChangeListener[] = [];
  private readonly pool: pg.Pool;
  constructor(pool: pg.Pool, options: { idempotencyKeyTtlSeconds?: number } = {}) {
    this.pool = pool;
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

  /** Product `id` as stored here with its features, or undefined. */
  async productWithFeatures(id: number): Promise<WrittenProduct | undefined> {
    const [row] = await this.transactions.run(`product ${id}`, (tx) => tx.query<ProductRow>(PRODUCT_WITH_FEATURES, [id]));
    return row ? written(row) : undefined;
  }

  /** The product an Idempotency-Key with this content created, if any (IdempotencyKeyReused when its content differs). */
  async keyedProduct(key: string, requestHash: string): Promise<number | undefined> {
    return this.transactions.run('this Idempotency-Key', (tx) => this.idempotencyKeys.find(tx, key, requestHash));
  }

  /** Remembers that an Idempotency-Key with this content created product `id` (KeyTakenMeanwhile when another did first). */
  async rememberKeyedProduct(key: string, requestHash: string, id: number): Promise<void> {
    await this.transactions.run('this Idempotency-Key', (tx) => this.idempotencyKeys.remember(tx, key, requestHash, id));
  }

  /** Product `id`'s version here (null: no such product): what a sync reads before it fetches a snapshot (applySourceProduct's `readBefore`). */
  async localVersion(id: number): Promise<string | null> {
    const { rows } = await this.pool.query<{ version: string }>(PRODUCT_VERSION, [id]);
    return rows[0]?.version ?? null;
  }

  /**
   * Sidecar mode: makes the local copy of product `id` what the legacy service
   * shows (`snapshot`), or deletes it (null: the legacy service answered 404).
   * One transaction, the product row locked first, the change announced
   * (NOTIFY) in it; then the listeners (response cache, CDN purge, listing
   * anchors). The product, its styles and skus keep their legacy ids. When
   * the snapshot's hash is the one stored last time (and the product is still
   * at the version that write left), nothing is written but the verification
   * time: no new version, no invalidation.
   */
  async applySourceProduct(id: number, snapshot: SourceSnapshot | null, readBefore?: string | null): Promise<SourceApplyResult> {
    const result = await this.transactions.run(`product ${id}`, async (tx): Promise<SourceApplyResult & { referencing?: number[]; moved?: number[] }> => {
      const existed = tx.opened.length > 0;
      const localVersion = (tx.opened[0] as { version: string } | undefined)?.version ?? null;
      // A snapshot fetched before a write here (through the sidecar) must not
      // undo it: a sync round that read the legacy service just before a PUT
      // would apply its older product over the PUT's, and serve the old name
      // until the next round.
      if (readBefore !== undefined && localVersion !== readBefore) {
        return { outcome: 'superseded', missingRelated: [] };
      }
      if (snapshot === null) {
        await tx.query(FORGET_HASH, [id]);
        if (!existed) return { outcome: 'absent', missingRelated: [] };
        const referencing = (await tx.query<{ id: number }>(DELETE_PRODUCT, [id])).map((row) => row.id);
        await notifyProductsChanged(tx, [id, ...referencing], 'deleted');
        return { outcome: 'deleted', missingRelated: [], referencing };
      }
      if (snapshot.id !== id) throw new TypeError(`snapshot of product ${snapshot.id} applied to product ${id}`);
      const [stored] = await tx.query<{ hash: string; version: string }>(SOURCE_HASH, [id]);
      // Unchanged there, and not changed here by anything else since (a data:load, say).
      if (existed && stored?.hash === snapshot.hash && stored.version === localVersion) {
        await tx.query(TOUCH_VERIFIED, [id]);
        const [row] = await tx.query<ProductRow>(PRODUCT_WITH_FEATURES, [id]);
        return { outcome: 'unchanged', written: written(row!), missingRelated: [] };
      }
      // Equal already (a product loaded from the CSV export, or one whose bytes
      // changed in nothing this copy keeps): remembered as verified, not written.
      if (existed && await this.equalsLocal(tx, snapshot)) {
        await tx.query(STORE_HASH, [id, snapshot.hash]);
        const [row] = await tx.query<ProductRow>(PRODUCT_WITH_FEATURES, [id]);
        return { outcome: 'unchanged', written: written(row!), missingRelated: [] };
      }
      await tx.query(UPSERT_SOURCE_PRODUCT, [id, snapshot.name, snapshot.slogan, snapshot.description, snapshot.category,
        snapshot.defaultPrice, snapshot.createdAt, snapshot.updatedAt, JSON.stringify(snapshot.features), existed]);
      const styles = snapshot.styles.map(({ photos: _p, skus: _s, ...style }) => style);
      const skus = snapshot.styles.flatMap((style) => style.skus.map((sku) => ({ ...sku, styleId: style.id })));
      // A style or sku the legacy service moved here from another product changes that product too.
      const moved = (await tx.query<{ id: number }>(MOVED_FROM_OTHERS, [id, JSON.stringify(styles), JSON.stringify(skus)])).map((row) => row.id);
      if (moved.length > 0) await notifyProductsChanged(tx, moved, 'updated');
      await tx.query(DELETE_SOURCE_STYLES, [id, JSON.stringify(styles)]);
      if (skus.length > 0) await tx.query(DELETE_SOURCE_SKUS, [JSON.stringify(skus)]);
      if (styles.length > 0) {
        await tx.query(INSERT_SOURCE_STYLES, [id, JSON.stringify(styles)]);
        const photos = snapshot.styles.flatMap((style) => style.photos.map((photo) => ({ ...photo, styleId: style.id })));
        if (photos.length > 0) await tx.query(INSERT_SOURCE_PHOTOS, [JSON.stringify(photos)]);
        if (skus.length > 0) await tx.query(INSERT_SOURCE_SKUS, [JSON.stringify(skus)]);
      }
      const missingRelated = (await tx.query<{ id: number }>(REPLACE_SOURCE_RELATED, [id, snapshot.related])).map((row) => row.id);
      await tx.query(STORE_HASH, [id, missingRelated.length > 0 ? `${snapshot.hash}${PARTIAL}` : snapshot.hash]);
      const [row] = await tx.query<ProductRow>(PRODUCT_WITH_FEATURES, [id]);
      return { outcome: existed ? 'updated' : 'created', written: written(row!), missingRelated, moved };
    }, { opening: lockProduct(id) });
    if (result.outcome === 'deleted') await this.changed([id, ...(result.referencing ?? [])], 'deleted');
    else if (result.outcome === 'created' || result.outcome === 'updated') await this.changed([id], result.outcome);
    if (result.moved?.length) await this.changed(result.moved, 'updated');
    const { referencing: _referencing, moved: _moved, ...answer } = result;
    return answer;
  }

  /** Whether the local copy of the snapshot's product already shows exactly what it shows. */
  private async equalsLocal(tx: TransactionClient, snapshot: SourceSnapshot): Promise<boolean> {
    type LocalStyle = { id: number; name: string; salePrice: string | null; originalPrice: string; isDefault: boolean; photos: { url: string; thumbnailUrl: string }[]; skus: { id: number; size: string; quantity: number }[] };
    const [local] = await tx.query<{
      name: string; slogan: string; description: string; category: string; defaultPrice: string; createdAt: Date; updatedAt: Date;
      features: { feature: string; value: string | null }[]; styles: LocalStyle[] | null; related: number[];
    }>(LOCAL_SOURCE_VIEW, [snapshot.id]);
    if (!local) return false;
    const style = (s: LocalStyle | SourceSnapshot['styles'][number]) => ({
      id: s.id, name: s.name, originalPrice: s.originalPrice, salePrice: s.salePrice, isDefault: s.isDefault,
      photos: s.photos.map((p) => ({ url: p.url, thumbnailUrl: p.thumbnailUrl })),
      skus: s.skus.map((k) => ({ id: k.id, size: k.size, quantity: k.quantity })),
    });
    const shape = (p: { name: string; slogan: string; description: string; category: string; defaultPrice: string; createdAt: string; updatedAt: string;
      features: { feature: string; value: string | null }[]; styles: (LocalStyle | SourceSnapshot['styles'][number])[]; related: number[] }) => JSON.stringify([
      p.name, p.slogan, p.description, p.category, p.defaultPrice, p.createdAt, p.updatedAt,
      p.features.map((f) => [f.feature, f.value]), p.styles.map(style), p.related]);
    return shape({ ...local, createdAt: local.createdAt.toISOString(), updatedAt: local.updatedAt.toISOString(), styles: local.styles ?? [] }) === shape(snapshot);
  }

  /** Before a write passes through (sidecar mode): NotFoundError or VersionMismatch as an update here would throw them. */
  async checkVersion(id: number, conditions: WriteConditions): Promise<void> {
    await this.transactions.run(`product ${id}`, async (tx) => this.checkLocked(tx, id, conditions), {
      opening: `SELECT version::text AS version FROM products WHERE id = ${Number.isSafeInteger(id) ? id : 0}`,
    });
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
