// One set of DataLoaders per request. Each relation is fetched with one keyed
// query per batch (see queries.ts), results come back in key order, and a
// missing key gets null or an empty list. Rows fetched by a list query prime
// the product loader so the same product is never fetched twice.
import DataLoader from 'dataloader';
import type { CatalogQueries, Feature, Photo, Product, ProductPage, ProductWithFeatures, Related, Sku, Style } from './queries.ts';
import { groupByPageKey, type PageKey, pageCacheKey } from './nested-pages.ts';

/**
 * Keys per batch. Keys travel as one array parameter, so the 65,535
 * bind-parameter limit is never in play; the cap keeps any one statement (and
 * its result) small enough that it cannot hold a request hostage.
 */
export const MAX_BATCH_SIZE = 1000;

function groupBy<T>(rows: T[], key: (row: T) => number, keys: readonly number[]): T[][] {
  const groups = new Map<number, T[]>();
  for (const k of keys) groups.set(k, []);
  for (const row of rows) groups.get(key(row))?.push(row);
  return keys.map((k) => groups.get(k) ?? []);
}

export interface CatalogLoaders {
  product: DataLoader<number, Product | null>;
  /** Products with their styles, photos and skus embedded, fetched in one statement. */
  productWithStyles: DataLoader<number, Product | null>;
  /** A product with its features in one statement (one snapshot: the REST detail and its ETag). */
  productWithFeatures: DataLoader<number, ProductWithFeatures | null>;
  /** A product with its features, styles (photos and skus embedded) and related ids: a product page in one statement. */
  productPage: DataLoader<number, ProductPage | null>;
  features: DataLoader<number, Feature[]>;
  styles: DataLoader<number, Style[]>;
  /** Styles with their photos and skus embedded, fetched in one statement. */
  stylesWithMedia: DataLoader<number, Style[]>;
  photos: DataLoader<number, Photo[]>;
  skus: DataLoader<number, Sku[]>;
  related: DataLoader<number, Related[]>;
  /** Styles by their own id (federation references). */
  style: DataLoader<number, Style | null>;
  /**
   * Pages of products' lists (`styles(first:, after:)`, `related(first:,
   * after:)`), keyed by (product, first, after): one statement for every page
   * a level asks for (nested-pages.ts).
   */
  stylePages: DataLoader<PageKey, Style[], string>;
  relatedPages: DataLoader<PageKey, Product[], string>;
  /** Puts rows a list query already fetched into the product loader. */
  primeProducts(products: Product[]): void;
  /** Ids of every product whose data these loaders fetched: what a cached response must be tagged with. */
  readonly touchedProducts: Set<number>;
}

/** The loaders' names, as metrics label them. */
export type LoaderName = Exclude<keyof CatalogLoaders, 'primeProducts' | 'touchedProducts'>;

/** Told the number of keys of every batch a loader sends (the dataloader_batch_size metric). */
export type BatchObserver = (loader: LoaderName, size: number) => void;

export function createLoaders(queries: CatalogQueries, observeBatch?: BatchObserver): CatalogLoaders {
  const options = { maxBatchSize: MAX_BATCH_SIZE };
  const touchedProducts = new Set<number>();
  /** A batch function that reports its size and, when keyed by product ids, records them. */
  const batch = <V>(name: LoaderName, keyedByProduct: boolean, run: (ids: readonly number[]) => Promise<V[]>) => (ids: readonly number[]) => {
    observeBatch?.(name, ids.length);
    if (keyedByProduct) for (const id of ids) touchedProducts.add(id);
    return run(ids);
  };
  /** A loader of products (with whatever `read` embeds) by id, null for a missing one. */
  const products = <P extends Product>(name: LoaderName, read: (ids: readonly number[]) => Promise<P[]>) =>
    new DataLoader<number, P | null>(batch(name, true, async (ids) => {
      const byId = new Map((await read(ids)).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }), options);
  const product = products('product', (ids) => queries.productsByIds(ids));
  const productWithStyles = products('productWithStyles', (ids) => queries.productsWithStylesByIds(ids));
  /** A loader of pages of each product's list, by (product, first, after). */
  const pages = <V>(name: LoaderName, run: (keys: readonly PageKey[]) => Promise<V[][]>) => new DataLoader<PageKey, V[], string>((keys) => {
    observeBatch?.(name, keys.length);
    for (const key of keys) touchedProducts.add(key.productId);
    return run(keys);
  }, { ...options, cacheKeyFn: pageCacheKey });
  return {
    touchedProducts,
    product,
    productWithStyles,
    productWithFeatures: products('productWithFeatures', (ids) => queries.productsWithFeaturesByIds(ids)),
    productPage: products('productPage', (ids) => queries.productPagesByIds(ids)),
    features: new DataLoader(batch('features', true, async (ids) => groupBy(await queries.featuresByProductIds(ids), (r) => r.productId, ids)), options),
    styles: new DataLoader(batch('styles', true, async (ids) => groupBy(await queries.stylesByProductIds(ids), (r) => r.productId, ids)), options),
    stylesWithMedia: new DataLoader(batch('stylesWithMedia', true, async (ids) => {
      const documents = new Map((await queries.styleDocumentsByProductIds(ids)).map((row) => [row.productId, row.styles]));
      return ids.map((id) => documents.get(id) ?? []);
    }), options),
    photos: new DataLoader(batch('photos', false, async (ids) => groupBy(await queries.photosByStyleIds(ids), (r) => r.styleId, ids)), options),
    skus: new DataLoader(batch('skus', false, async (ids) => groupBy(await queries.skusByStyleIds(ids), (r) => r.styleId, ids)), options),
    related: new DataLoader(batch('related', true, async (ids) => groupBy(await queries.relatedByProductIds(ids), (r) => r.currentProductId, ids)), options),
    style: new DataLoader<number, Style | null>(async (ids) => {
      observeBatch?.('style', ids.length);
      const rows = await queries.stylesByIds(ids);
      // A cached answer showing a style must go when its product changes.
      for (const row of rows) touchedProducts.add(row.productId);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }, options),
    stylePages: pages('stylePages', async (keys) => groupByPageKey(await queries.nestedPages('stylePages', keys), keys.length)),
    relatedPages: pages('relatedPages', async (keys) => {
      const found = groupByPageKey(await queries.nestedPages('relatedPages', keys), keys.length);
      // Related products are products like any other: later fields of theirs read none again.
      for (const page of found) {
        for (const row of page) {
          touchedProducts.add(row.id);
          product.prime(row.id, row);
        }
      }
      return found;
    }),
    primeProducts(products) {
      for (const row of products) {
        touchedProducts.add(row.id);
        product.prime(row.id, row);
      }
    },
  };
}
