// One set of DataLoaders per request. Each relation is fetched with one keyed
// query per batch (see queries.ts), results come back in key order, and a
// missing key gets null or an empty list. Rows fetched by a list query prime
// the product loader so the same product is never fetched twice.
import DataLoader from 'dataloader';
import { inSpan, traces } from '../../tracing/spans.ts';
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
  /** A product's styles (photos and skus embedded) in one statement, without the product's own fields; null for an unknown product. */
  productStyles: DataLoader<number, Style[] | null>;
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
  return new Loaders(queries, observeBatch);
}

const options = { maxBatchSize: MAX_BATCH_SIZE };

/**
 * One batch of a loader, a span when traced (dataloader.batch <loader>, its
 * size; never the keys): its statement is its child, and the time between a
 * resolver asking and the batch going out shows as the gap before it.
 */
function batchSpan<T>(name: LoaderName, size: number, run: () => Promise<T>): Promise<T> {
  if (!traces.tracer) return run();
  return inSpan(`dataloader.batch ${name}`, { 'catalogue.dataloader.name': name, 'catalogue.dataloader.batch_size': size }, run);
}

/**
 * Each loader is made when a request first asks for it: a request uses one
 * or a few of them (a REST read one), and making all of them would be most of
 * what a small request's loaders cost.
 */
class Loaders implements CatalogLoaders {
  readonly touchedProducts = new Set<number>();
  private readonly queries: CatalogQueries;
  private readonly observeBatch: BatchObserver | undefined;
  private readonly made: { [K in LoaderName]?: CatalogLoaders[K] } = {};

  constructor(queries: CatalogQueries, observeBatch: BatchObserver | undefined) {
    this.queries = queries;
    this.observeBatch = observeBatch;
  }

  /** A batch function that reports its size and, when keyed by product ids, records them. */
  private batch<V>(name: LoaderName, keyedByProduct: boolean, run: (ids: readonly number[]) => Promise<V[]>) {
    return (ids: readonly number[]) => {
      this.observeBatch?.(name, ids.length);
      if (keyedByProduct) for (const id of ids) this.touchedProducts.add(id);
      return batchSpan(name, ids.length, () => run(ids));
    };
  }

  /** A loader of products (with whatever `read` embeds) by id, null for a missing one. */
  private products<P extends Product>(name: LoaderName, read: (ids: readonly number[]) => Promise<P[]>) {
    return new DataLoader<number, P | null>(this.batch(name, true, async (ids) => {
      const byId = new Map((await read(ids)).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }), options);
  }

  /** A loader of every row of `read` for each key (a product's features, a style's photos), in its order. */
  private grouped<R>(name: LoaderName, keyedByProduct: boolean, read: (ids: readonly number[]) => Promise<R[]>, keyOf: (row: R) => number) {
    return new DataLoader(this.batch(name, keyedByProduct, async (ids) => groupBy(await read(ids), keyOf, ids)), options);
  }

  /** A loader of each product's stored styles document (`missing` for a product without one). */
  private styleDocuments<R extends { styles: Style[] }, M>(name: LoaderName, read: (ids: readonly number[]) => Promise<R[]>, productOf: (row: R) => number, missing: M) {
    return new DataLoader(this.batch(name, true, async (ids) => {
      const documents = new Map((await read(ids)).map((row) => [productOf(row), row.styles]));
      return ids.map((id) => documents.get(id) ?? missing);
    }), options);
  }

  /** A loader of pages of each product's list, by (product, first, after). */
  private pages<V>(name: LoaderName, run: (keys: readonly PageKey[]) => Promise<V[][]>) {
    return new DataLoader<PageKey, V[], string>((keys) => {
      this.observeBatch?.(name, keys.length);
      for (const key of keys) this.touchedProducts.add(key.productId);
      return batchSpan(name, keys.length, () => run(keys));
    }, { ...options, cacheKeyFn: pageCacheKey });
  }

  get product() {
    return this.made.product ??= this.products('product', (ids) => this.queries.productsByIds(ids));
  }

  get productWithStyles() {
    return this.made.productWithStyles ??= this.products('productWithStyles', (ids) => this.queries.productsWithStylesByIds(ids));
  }

  get productStyles() {
    return this.made.productStyles ??= this.styleDocuments('productStyles', (ids) => this.queries.productStylesByIds(ids), (row) => row.id, null);
  }

  get productWithFeatures() {
    return this.made.productWithFeatures ??= this.products('productWithFeatures', (ids) => this.queries.productsWithFeaturesByIds(ids));
  }

  get productPage() {
    return this.made.productPage ??= this.products('productPage', (ids) => this.queries.productPagesByIds(ids));
  }

  get features() {
    return this.made.features ??= this.grouped('features', true, (ids) => this.queries.featuresByProductIds(ids), (r) => r.productId);
  }

  get styles() {
    return this.made.styles ??= this.grouped('styles', true, (ids) => this.queries.stylesByProductIds(ids), (r) => r.productId);
  }

  get stylesWithMedia() {
    return this.made.stylesWithMedia ??= this.styleDocuments('stylesWithMedia', (ids) => this.queries.styleDocumentsByProductIds(ids), (row) => row.productId, []);
  }

  get photos() {
    return this.made.photos ??= this.grouped('photos', false, (ids) => this.queries.photosByStyleIds(ids), (r) => r.styleId);
  }

  get skus() {
    return this.made.skus ??= this.grouped('skus', false, (ids) => this.queries.skusByStyleIds(ids), (r) => r.styleId);
  }

  get related() {
    return this.made.related ??= this.grouped('related', true, (ids) => this.queries.relatedByProductIds(ids), (r) => r.currentProductId);
  }

  get style() {
    return this.made.style ??= new DataLoader<number, Style | null>(async (ids) => {
      this.observeBatch?.('style', ids.length);
      const rows = await batchSpan('style', ids.length, () => this.queries.stylesByIds(ids));
      // A cached answer showing a style must go when its product changes.
      for (const row of rows) this.touchedProducts.add(row.productId);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }, options);
  }

  get stylePages() {
    return this.made.stylePages ??= this.pages('stylePages', async (keys) =>
      groupByPageKey(await this.queries.nestedPages('stylePages', keys), keys.length));
  }

  get relatedPages() {
    return this.made.relatedPages ??= this.pages('relatedPages', async (keys) => {
      const found = groupByPageKey(await this.queries.nestedPages('relatedPages', keys), keys.length);
      // Related products are products like any other: later fields of theirs read none again.
      for (const page of found) this.primeProducts(page);
      return found;
    });
  }

  primeProducts(products: Product[]): void {
    for (const row of products) {
      this.touchedProducts.add(row.id);
      this.product.prime(row.id, row);
    }
  }
}
