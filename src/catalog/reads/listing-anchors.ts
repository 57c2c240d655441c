// Legacy pagination (`page`, `count`: the (page-1)*count+1-th product on, in id
// order) without OFFSET scans over a million rows. Every ANCHOR_SPACING-th id
// is kept in memory; a page seeks to the anchor before its first position and
// skips fewer than ANCHOR_SPACING rows from there. The anchors are rebuilt
// (one index-only scan of the primary key) at once after a product is created
// or deleted through this process, and in the background for changes made
// elsewhere (another instance, a reload): every `refreshMs` (LISTING_REFRESH_MS)
// a cheap check asks Postgres whether products were inserted or deleted since,
// and only then are they rebuilt, serving the previous anchors meanwhile so no
// request waits for a periodic rebuild. With a shared
// cache, a version that every instance bumps on create/delete is checked on
// each listing read (a cache miss), and a moved version rebuilds at once.
import { AsyncResource } from 'node:async_hooks';
import type { CatalogQueries, Product } from './queries.ts';

/**
 * Rows a page may skip past its anchor. A skipped row is still read from the
 * table (OFFSET fetches it to drop it), so the spacing is what a listing page
 * costs Postgres: with 1,000 (500 skipped rows on average) the listing page
 * is Postgres-bound well below the other routes, and a second worker only
 * lengthens Postgres's queue; 100 anchors cost 8 bytes each (80 KB for a
 * million products) and the same one scan.
 */
export const ANCHOR_SPACING = 100;

/** The legacy listing's defaults (`?page=1&count=5`); the GraphQL `products` arguments' defaults are checked against them. */
export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 5;

export class ProductPages {
  private readonly queries: CatalogQueries;
  private anchors: Promise<number[]> | undefined;
  private builtAt = 0;
  /** productsChangeSignature() when the anchors were last built. */
  private builtForSignature: string | undefined;
  private refreshing: Promise<void> | undefined;

  private readonly sharedVersion: (() => Promise<number | undefined>) | undefined;
  private builtForVersion: number | undefined;
  private readonly refreshMs: number;

  constructor(queries: CatalogQueries, options: { refreshMs: number; sharedVersion?: () => Promise<number | undefined> }) {
    this.queries = queries;
    this.sharedVersion = options.sharedVersion;
    this.refreshMs = options.refreshMs;
  }

  /** Builds the anchors now (at start-up), so no request waits for them. */
  async warm(): Promise<void> {
    await this.current();
  }

  /** Forget the anchors (products were created or deleted). */
  invalidate(): void {
    this.anchors = undefined;
  }

  // Anchors are shared by every request, so building them is not charged to
  // whichever request happened to need them first: they run in the async
  // context this object was created in (server start-up), not the request's.
  private readonly outsideRequests = new AsyncResource('ProductPages');

  private build(): Promise<number[]> {
    this.builtAt = Date.now();
    return this.outsideRequests.runInAsyncScope(async () => {
      const { anchors, signature } = await this.queries.pageAnchors(ANCHOR_SPACING);
      this.builtForSignature = signature;
      return anchors;
    });
  }

  /**
   * The periodic rebuild, when products may have been created or deleted
   * since the last one. A rebuild reads the whole primary key (2 s of a
   * Postgres core at full scale, more on a cold cache), and every worker
   * process would do it every LISTING_REFRESH_MS: with two workers on two
   * cores, two rebuilds at once hold both cores. So the table's insert and
   * delete counts are read first (one row of pg_stat_user_tables) and the
   * anchors are rebuilt only when they moved, or when they cannot say.
   */
  private async refresh(previous: Promise<number[]>): Promise<void> {
    const signature = await this.outsideRequests.runInAsyncScope(() => this.queries.productsChangeSignature());
    if (signature !== undefined && signature === this.builtForSignature) {
      this.builtAt = Date.now();
      return;
    }
    const fresh = await this.build();
    if (this.anchors === previous) this.anchors = Promise.resolve(fresh);
  }

  private async current(): Promise<number[]> {
    if (this.sharedVersion) {
      const version = await this.sharedVersion();
      if (version !== undefined && version !== this.builtForVersion) {
        this.anchors = undefined;
        this.builtForVersion = version;
      }
    }
    if (!this.anchors) {
      const building = this.build();
      this.anchors = building;
      // A failed build must not be cached.
      building.catch(() => { if (this.anchors === building) this.anchors = undefined; });
      return building;
    }
    if (!this.refreshing && Date.now() - this.builtAt > this.refreshMs) {
      this.refreshing = this.refresh(this.anchors).catch(() => {}).finally(() => { this.refreshing = undefined; });
    }
    return this.anchors;
  }

  async page(page: number, count: number): Promise<Product[]> {
    const position = (page - 1) * count;
    if (!Number.isSafeInteger(position)) return [];
    const anchors = await this.current();
    const anchor = anchors[Math.floor(position / ANCHOR_SPACING)];
    if (anchor === undefined) return [];
    return this.queries.productPageFrom(anchor, position % ANCHOR_SPACING, count);
  }
}
