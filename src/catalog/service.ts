// Writes to the catalogue. Each runs in one transaction; after it commits,
// listeners (the response cache, later) hear which products changed.
import type { Prisma } from '../db/prisma.ts';
import type { Product as ProductModel } from '../generated/prisma/client.ts';
import { formatMoney } from './money.ts';
import type { Product } from './types.ts';
import { NotFoundError, type ProductWrite } from './validation.ts';

function toProduct(model: ProductModel): Product {
  return { ...model, defaultPrice: formatMoney(model.defaultPrice) };
}

export type ProductChange = 'created' | 'updated' | 'deleted';
export type ProductChangeListener = (productIds: number[], change: ProductChange) => Promise<void> | void;

export class CatalogService {
  private readonly prisma: Prisma;
  private readonly listeners: ProductChangeListener[] = [];
  constructor(prisma: Prisma) {
    this.prisma = prisma;
  }

  onProductsChanged(listener: ProductChangeListener): void {
    this.listeners.push(listener);
  }

  private async changed(ids: number[], change: ProductChange): Promise<void> {
    for (const listener of this.listeners) await listener(ids, change);
  }

  async createProduct(write: Required<Pick<ProductWrite, 'name' | 'slogan' | 'description' | 'category' | 'defaultPrice'>> & ProductWrite): Promise<Product> {
    const product = await this.prisma.product.create({
      data: {
        name: write.name, slogan: write.slogan, description: write.description, category: write.category,
        defaultPrice: write.defaultPrice,
        features: { create: (write.features ?? []).map((f) => ({ feature: f.feature, value: f.value })) },
      },
    });
    await this.changed([product.id], 'created');
    return toProduct(product);
  }

  async updateProduct(id: number, write: ProductWrite): Promise<Product> {
    const { features, ...fields } = write;
    const product = await this.prisma.$transaction(async (tx) => {
      const existing = await tx.product.findUnique({ where: { id }, select: { id: true } });
      if (!existing) throw new NotFoundError(`product ${id} not found`);
      if (features) {
        await tx.feature.deleteMany({ where: { productId: id } });
        await tx.feature.createMany({ data: features.map((f) => ({ productId: id, feature: f.feature, value: f.value })) });
      }
      return tx.product.update({ where: { id }, data: fields });
    });
    await this.changed([id], 'updated');
    return toProduct(product);
  }

  async deleteProduct(id: number): Promise<void> {
    // Products that list this one as related change too (their related rows cascade away).
    const result = await this.prisma.$transaction(async (tx) => {
      const referencing = await tx.related.findMany({ where: { relatedProductId: id }, select: { currentProductId: true }, distinct: ['currentProductId'] });
      const { count } = await tx.product.deleteMany({ where: { id } });
      if (count === 0) throw new NotFoundError(`product ${id} not found`);
      return referencing.map((r) => r.currentProductId);
    });
    await this.changed([id, ...result], 'deleted');
  }
}
