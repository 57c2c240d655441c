// The legacy simulator's catalogue: products with features, styles (photos,
// skus) and related ids, in memory. Built from (seed, size) alone with the
// legacy-format generator's value generators (src/etl/generate/values.ts), so
// the same flags always serve the same bytes; then changed by the legacy write
// routes and by the admin endpoints ("behind the sidecar's back").
import { Rng } from '../etl/generate/random.ts';
import { featureValues, photoUrls, productBasics, productText, styleName } from '../etl/generate/values.ts';
import { sizesFor } from '../etl/generate/vocabulary.ts';
import type { ProductFields } from '../catalog/model/types.ts';

export interface SimFeature { id: number; feature: string; value: string | null }
export interface SimPhoto { id: number; thumbnailUrl: string; url: string }
export interface SimSku { id: number; quantity: number; size: string }
export interface SimStyle {
  id: number;
  name: string;
  originalPrice: string;
  /** null when not on sale. */
  salePrice: string | null;
  isDefault: boolean;
  /** In photo id order. */
  photos: SimPhoto[];
  /** In sku id order. */
  skus: SimSku[];
}
export interface SimProduct extends ProductFields {
  id: number;
  createdAt: Date;
  updatedAt: Date;
  /** In feature id order. */
  features: SimFeature[];
  /** In style id order. */
  styles: SimStyle[];
  /** Related product ids in row order, duplicates kept (ids of deleted products are skipped when read). */
  related: number[];
}

/** What a write may set; every field optional (a create checks for the required ones before). */
export interface ProductChange {
  name?: string;
  slogan?: string;
  description?: string;
  category?: string;
  defaultPrice?: string;
  /** Replaces the list; ids are assigned. */
  features?: { feature: string; value: string | null }[];
  /** Replaces the list; a style without id, photo without id or sku without id gets a new one. */
  styles?: StyleInput[];
  /** Replaces the list. */
  related?: number[];
  createdAt?: Date;
  updatedAt?: Date;
}

export interface StyleInput {
  id?: number;
  name: string;
  originalPrice: string;
  salePrice: string | null;
  isDefault: boolean;
  photos: { id?: number; thumbnailUrl: string; url: string }[];
  skus: { id?: number; quantity: number; size: string }[];
}

/** Seeded products were all loaded at once by the legacy ETL: one timestamp. */
export const SEEDED_AT = new Date('2021-08-13T14:38:44.509Z');

// Streams of our own (the generator's are 1..12), one per kind of draw.
const STREAM = { product: 101, styles: 102, related: 103 } as const;

const money = (whole: number) => `${whole}.00`;

export class SimCatalogue {
  private products = new Map<number, SimProduct>();
  /** Product ids in ascending order: the listing. */
  private ids: number[] = [];
  private next = { product: 1, feature: 1, style: 1, photo: 1, sku: 1 };
  readonly seed: number;
  readonly size: number;
  private readonly now: () => Date;

  constructor(options: { seed: number; size: number; now?: () => Date }) {
    this.seed = options.seed;
    this.size = options.size;
    this.now = options.now ?? (() => new Date());
    this.reset();
  }

  /** Back to the seeded catalogue: every change (writes and admin) undone. */
  reset(): void {
    this.products = new Map();
    this.ids = [];
    this.next = { product: 1, feature: 1, style: 1, photo: 1, sku: 1 };
    for (let id = 1; id <= this.size; id++) this.insert(this.seeded(id));
    this.next.product = this.size + 1;
  }

  /** Product `id` of the seeded catalogue; features, styles, photos and skus take the next ids in turn. */
  private seeded(id: number): SimProduct {
    const basics = productBasics(this.seed, id);
    const text = productText(basics);
    const rng = new Rng(this.seed, STREAM.product, id);
    const features: SimFeature[] = [];
    const featureCount = rng.int(0, 4);
    const start = rng.int(0, 96);
    for (let i = 0; i < featureCount; i++) {
      const { feature, value } = featureValues(rng, i, start);
      features.push({ id: this.next.feature++, feature, value: value === null || rng.chance(0.04) ? null : value });
    }
    const styles: SimStyle[] = [];
    const styleRng = new Rng(this.seed, STREAM.styles, id);
    // About 2% of products have no styles, 3% of styles no photos, 3% no skus (as the legacy data).
    const styleCount = styleRng.chance(0.02) ? 0 : styleRng.int(1, 3);
    const sizes = sizesFor(basics.category);
    for (let s = 0; s < styleCount; s++) {
      const styleId = this.next.style++;
      const onSale = !styleRng.chance(0.62);
      const photos: SimPhoto[] = [];
      const photoCount = styleRng.chance(0.03) ? 0 : styleRng.int(1, 5);
      for (let p = 0; p < photoCount; p++) {
        const photoId = this.next.photo++;
        const { url, thumbnailUrl } = photoUrls(this.seed, photoId);
        photos.push({ id: photoId, thumbnailUrl, url });
      }
      const skus: SimSku[] = [];
      const skuCount = styleRng.chance(0.03) ? 0 : styleRng.int(1, 10);
      // Sizes run in order and wrap around, so big styles repeat a size (two XL skus).
      let cursor = styleRng.int(0, sizes.length - 1);
      for (let k = 0; k < skuCount; k++) {
        skus.push({ id: this.next.sku++, quantity: styleRng.int(0, 60), size: sizes[cursor++ % sizes.length] as string });
      }
      styles.push({
        id: styleId,
        name: styleName(styleRng),
        originalPrice: money(basics.price),
        salePrice: onSale ? money(Math.max(1, Math.round(basics.price * (0.5 + styleRng.next() * 0.4)))) : null,
        isDefault: s === 0 ? styleRng.chance(0.95) : styleRng.chance(0.03),
        photos,
        skus,
      });
    }
    const related: number[] = [];
    const relatedRng = new Rng(this.seed, STREAM.related, id);
    const relatedCount = this.size < 2 ? 0 : relatedRng.int(0, 8);
    for (let r = 0; r < relatedCount; r++) {
      const previous = related[related.length - 1];
      // About 1% duplicate pairs, as the live service kept them.
      if (previous !== undefined && relatedRng.chance(0.01)) { related.push(previous); continue; }
      let target = relatedRng.int(1, this.size - 1);
      if (target >= id) target += 1;
      related.push(target);
    }
    return {
      id, name: text.name, slogan: text.slogan, description: text.description, category: basics.category,
      defaultPrice: money(basics.price), createdAt: SEEDED_AT, updatedAt: SEEDED_AT, features, styles, related,
    };
  }

  private insert(product: SimProduct): void {
    this.products.set(product.id, product);
    const last = this.ids[this.ids.length - 1];
    if (last === undefined || product.id > last) { this.ids.push(product.id); return; }
    let low = 0;
    let high = this.ids.length;
    while (low < high) { const mid = (low + high) >> 1; if ((this.ids[mid] as number) < product.id) low = mid + 1; else high = mid; }
    this.ids.splice(low, 0, product.id);
  }

  get count(): number {
    return this.ids.length;
  }

  get(id: number): SimProduct | undefined {
    return this.products.get(id);
  }

  /** Page `page` (from 1) of `count` products in id order. */
  page(page: number, count: number): SimProduct[] {
    const start = (page - 1) * count;
    if (start >= this.ids.length) return [];
    return this.ids.slice(start, start + count).map((id) => this.products.get(id) as SimProduct);
  }

  /** Related ids as the route shows them: row order, duplicates kept, only products that exist. */
  relatedOf(product: SimProduct): number[] {
    return product.related.filter((id) => id !== 0 && this.products.has(id));
  }

  /** Adds a product with the next id (or `id` when given and free); created_at = updated_at = now unless set. */
  create(change: ProductChange & { id?: number }): SimProduct {
    const id = change.id ?? this.next.product;
    if (this.products.has(id)) throw new Error(`product ${id} already exists`);
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`product id must be a positive integer (got ${id})`);
    this.next.product = Math.max(this.next.product, id + 1);
    const now = this.now();
    const product: SimProduct = {
      id, name: '', slogan: '', description: '', category: '', defaultPrice: '0.00',
      createdAt: change.createdAt ?? now, updatedAt: change.updatedAt ?? change.createdAt ?? now, features: [], styles: [], related: [],
    };
    this.apply(product, change);
    this.insert(product);
    return product;
  }

  /**
   * Changes a product in place; undefined when there is none. updated_at
   * becomes now unless `touch` is false or `change.updatedAt` says otherwise.
   */
  update(id: number, change: ProductChange, options: { touch?: boolean } = {}): SimProduct | undefined {
    const product = this.products.get(id);
    if (!product) return undefined;
    this.apply(product, change);
    if (change.updatedAt) product.updatedAt = change.updatedAt;
    else if (options.touch !== false) product.updatedAt = this.now();
    return product;
  }

  /** Removes a product; false when there was none. Other products' related ids to it are no longer shown. */
  delete(id: number): boolean {
    if (!this.products.delete(id)) return false;
    const at = this.ids.indexOf(id);
    if (at >= 0) this.ids.splice(at, 1);
    return true;
  }

  private apply(product: SimProduct, change: ProductChange): void {
    for (const field of ['name', 'slogan', 'description', 'category', 'defaultPrice'] as const) {
      const value = change[field];
      if (value !== undefined) product[field] = value;
    }
    if (change.createdAt) product.createdAt = change.createdAt;
    if (change.features) product.features = change.features.map((f) => ({ id: this.next.feature++, feature: f.feature, value: f.value }));
    if (change.related) product.related = [...change.related];
    if (change.styles) {
      const styles = change.styles.map((style) => ({
        id: style.id ?? this.next.style++,
        name: style.name,
        originalPrice: style.originalPrice,
        salePrice: style.salePrice,
        isDefault: style.isDefault,
        photos: style.photos.map((p) => ({ id: p.id ?? this.next.photo++, thumbnailUrl: p.thumbnailUrl, url: p.url })).sort((a, b) => a.id - b.id),
        skus: style.skus.map((s) => ({ id: s.id ?? this.next.sku++, quantity: s.quantity, size: s.size })).sort((a, b) => a.id - b.id),
      }));
      for (const style of styles) {
        this.next.style = Math.max(this.next.style, style.id + 1);
        for (const photo of style.photos) this.next.photo = Math.max(this.next.photo, photo.id + 1);
        for (const sku of style.skus) this.next.sku = Math.max(this.next.sku, sku.id + 1);
      }
      product.styles = styles.sort((a, b) => a.id - b.id);
    }
  }
}
