// Writes to the catalogue. Each runs in one SERIALIZABLE transaction, retried
// on write conflicts (src/db/transaction.ts); after it commits, listeners
// (the response cache, listing pages) hear which products changed. Each also
// announces its change in its transaction (NOTIFY, delivered on commit), so
// every instance hears it (src/cache/change-feed.ts).
import { notifyProductsChanged } from '../cache/change-feed.ts';
import type { Prisma } from '../db/prisma.ts';
import { Transactions } from '../db/transaction.ts';
import type { Product as ProductModel } from '../generated/prisma/client.ts';
import { fingerprint, IdempotencyKeys, isKeyTaken } from './idempotency.ts';
import { formatMoney } from './money.ts';
import type { Product } from './types.ts';
import { NotFoundError, type ProductWrite } from './validation.ts';

function toProduct(model: ProductModel): Product {
  return { ...model, defaultPrice: formatMoney(model.defaultPrice) };
}

export type ProductChange = 'created' | 'updated' | 'deleted';
export type ProductChangeListener = (productIds: number[], change: ProductChange) => Promise<void> | void;

export type ProductCreate = Required<Pick<ProductWrite, 'name' | 'slogan' | 'description' | 'category' | 'defaultPrice'>> & ProductWrite;

export interface CreateResult {
  product: Product;
  /** True when an earlier create with the same Idempotency-Key made this product. */
  replayed: boolean;
}

export class CatalogService {
  private readonly prisma: Prisma;
  private readonly transactions: Transactions;
  private readonly idempotencyKeys: IdempotencyKeys;
  private readonly listeners: ProductChangeListener[] = [];
  constructor(prisma: Prisma, options: { transactions?: Transactions; idempotencyKeyTtlSeconds?: number } = {}) {
    this.prisma = prisma;
    this.transactions = options.transactions ?? new Transactions(prisma);
    this.idempotencyKeys = new IdempotencyKeys(prisma, options.idempotencyKeyTtlSeconds ?? 24 * 3600);
  }

  /** Write transactions run again after serialization failures and deadlocks. */
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
   * Creates a product; with an idempotency key, at most once per key: a repeat
   * (even a concurrent one) answers with the product the first one made.
   */
  async createProduct(write: ProductCreate, options: { idempotencyKey?: string } = {}): Promise<CreateResult> {
    const key = options.idempotencyKey;
    const requestHash = key === undefined ? '' : fingerprint(write);
    const result = await this.transactions.run(async (tx) => {
      const now = new Date();
      if (key !== undefined) {
        const earlierId = await this.idempotencyKeys.find(tx, key, requestHash, now);
        if (earlierId !== undefined) {
          const earlier = await tx.product.findUnique({ where: { id: earlierId } });
          if (!earlier) throw new NotFoundError(`product ${earlierId}, created with this Idempotency-Key, has been deleted since`);
          return { product: earlier, replayed: true };
        }
      }
      const product = await tx.product.create({
        data: {
          name: write.name, slogan: write.slogan, description: write.description, category: write.category,
          defaultPrice: write.defaultPrice,
          features: { create: (write.features ?? []).map((f) => ({ feature: f.feature, value: f.value })) },
        },
      });
      if (key !== undefined) await this.idempotencyKeys.remember(tx, key, requestHash, product.id, now);
      await notifyProductsChanged(tx, [product.id], 'created');
      return { product, replayed: false };
      // Racers with the same key fail with a serialization failure (they read the
      // key first); should Postgres report the unique violation instead, the
      // next run finds the key the winner stored all the same.
    }, { retryAlso: isKeyTaken });
    if (key !== undefined) this.idempotencyKeys.sweepExpired();
    if (!result.replayed) await this.changed([result.product.id], 'created');
    return { product: toProduct(result.product), replayed: result.replayed };
  }

  async updateProduct(id: number, write: ProductWrite): Promise<Product> {
    const { features, ...fields } = write;
    const product = await this.transactions.run(async (tx) => {
      const existing = await tx.product.findUnique({ where: { id }, select: { id: true } });
      if (!existing) throw new NotFoundError(`product ${id} not found`);
      if (features) {
        await tx.feature.deleteMany({ where: { productId: id } });
        await tx.feature.createMany({ data: features.map((f) => ({ productId: id, feature: f.feature, value: f.value })) });
      }
      await notifyProductsChanged(tx, [id], 'updated');
      return tx.product.update({ where: { id }, data: fields });
    });
    await this.changed([id], 'updated');
    return toProduct(product);
  }

  async deleteProduct(id: number): Promise<void> {
    // Products that list this one as related change too (their related rows cascade away).
    const result = await this.transactions.run(async (tx) => {
      const referencing = await tx.related.findMany({ where: { relatedProductId: id }, select: { currentProductId: true }, distinct: ['currentProductId'] });
      const { count } = await tx.product.deleteMany({ where: { id } });
      if (count === 0) throw new NotFoundError(`product ${id} not found`);
      await notifyProductsChanged(tx, [id, ...referencing.map((r) => r.currentProductId)], 'deleted');
      return referencing.map((r) => r.currentProductId);
    });
    await this.changed([id, ...result], 'deleted');
  }
}
