// Every read of the catalogue: keyed queries that take a batch of ids and
// return rows for all of them in one statement. Loaders batch into these;
// nothing else reads the catalogue tables.
import type { Prisma } from '../db/prisma.ts';
import type { Feature, Photo, Product, Related, Sku, Style } from '../generated/prisma/client.ts';

export type { Feature, Photo, Product, Related, Sku, Style };

export class CatalogQueries {
  private readonly prisma: Prisma;
  constructor(prisma: Prisma) {
    this.prisma = prisma;
  }

  productsByIds(ids: readonly number[]): Promise<Product[]> {
    return this.prisma.product.findMany({ where: { id: { in: [...ids] } } });
  }

  featuresByProductIds(ids: readonly number[]): Promise<Feature[]> {
    return this.prisma.feature.findMany({ where: { productId: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  stylesByProductIds(ids: readonly number[]): Promise<Style[]> {
    return this.prisma.style.findMany({ where: { productId: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  photosByStyleIds(ids: readonly number[]): Promise<Photo[]> {
    return this.prisma.photo.findMany({ where: { styleId: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  skusByStyleIds(ids: readonly number[]): Promise<Sku[]> {
    return this.prisma.sku.findMany({ where: { styleId: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  relatedByProductIds(ids: readonly number[]): Promise<Related[]> {
    return this.prisma.related.findMany({ where: { currentProductId: { in: [...ids] } }, orderBy: { id: 'asc' } });
  }

  /** The legacy page: `count` products from the `(page-1)*count + 1`-th on, in id order. */
  async productPage(page: number, count: number): Promise<Product[]> {
    const skip = (page - 1) * count;
    return this.prisma.product.findMany({ orderBy: { id: 'asc' }, skip, take: count });
  }

  /** Keyset pagination: `first` products with an id above `afterId`. */
  productsAfter(afterId: number, first: number): Promise<Product[]> {
    return this.prisma.product.findMany({ where: { id: { gt: afterId } }, orderBy: { id: 'asc' }, take: first });
  }
}
