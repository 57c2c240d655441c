// What a generated catalogue looks like: how many rows each file has at a given
// scale, how children are spread over parents, and where each dirty-data quirk
// goes. Everything here is a pure function of (scale, seed), so every worker
// that needs the structure recomputes the same one.
import { hash3, Rng, Stream } from './random.ts';
import type { TextStyle } from './values.ts';

export const FILES = ['product', 'features', 'styles', 'photos', 'skus', 'related'] as const;
export type FileName = (typeof FILES)[number];

/** Data rows (header excluded) of the real legacy files; see legacy-api.md. */
export const FULL_SCALE_ROWS: Record<FileName, number> = {
  product: 1_000_011,
  features: 2_219_279,
  styles: 1_958_102,
  photos: 5_655_655, // 5,655,656 physical lines with the header
  skus: 11_323_917,
  related: 4_508_263,
};

/**
 * Dirty-data quirks, as counts at full scale (scaled down proportionally) for
 * quirks placed on evenly spaced rows, or as probabilities for per-row ones.
 * docs/data.md documents these rates; the manifest records the actual counts.
 */
export const QUIRKS = {
  /** `"Accessories", 69` or `69 `: whitespace around a number (kept, trimmed). */
  productPriceWhitespace: 2_000,
  stylePriceWhitespace: 2_000,
  skuQuantityWhitespace: 5_000,
  /** Children whose parent id does not exist (rejected). */
  featureOrphans: 450,
  styleOrphans: 400,
  photoOrphans: 900,
  skuOrphans: 1_600,
  relatedOrphans: 500,
  /** related_product_id = 0 (rejected) and pointing at a missing product (rejected). */
  relatedZero: 21_000,
  relatedMissingTarget: 450,
  /** Photo rows with an opening quote and no closing one; the legacy files have about 193. */
  photoUnterminatedQuote: 193,
  /** Photo ids skipped: the legacy max id is 5,655,719 over 5,655,655 rows. */
  photoIdGaps: 64,
  /** Per-row probabilities. */
  saleNull: 0.62,
  featureValueNull: 0.04,
  relatedDuplicate: 0.01,
  productsWithoutStyles: 0.02,
  stylesWithoutPhotos: 0.03,
  stylesWithoutSkus: 0.03,
} as const;

export interface Plan {
  scale: number;
  seed: number;
  text: TextStyle;
  rows: Record<FileName, number>;
}

export function makePlan(scale: number, seed: number, text: TextStyle = 'realistic'): Plan {
  const rows = {} as Record<FileName, number>;
  for (const file of FILES) rows[file] = Math.max(1, Math.round(FULL_SCALE_ROWS[file] * scale));
  return { scale, seed, text, rows };
}

export function scaledCount(fullScaleCount: number, scale: number): number {
  return Math.round(fullScaleCount * scale);
}

/**
 * Evenly spaced slots: `count` rows out of `total`, shifted by `phase` (0..1)
 * so different quirks rarely land on the same row.
 */
export class Slots {
  private readonly total: number;
  private readonly count: number;
  private readonly phase: number;
  constructor(total: number, count: number, phase: number) {
    this.total = total;
    this.count = Math.min(count, total);
    this.phase = phase;
  }
  has(row: number): boolean {
    if (this.count === 0) return false;
    const k = Math.ceil((row * this.count) / this.total - this.phase);
    return k >= 0 && k < this.count && Math.floor(((k + this.phase) * this.total) / this.count) === row;
  }
}

/**
 * Spreads exactly `total` children over `parents` parents: about `zeroRate` of
 * the parents get none, the others a varied number around the mean; then a
 * deterministic correction makes the sum exact.
 */
export function distribute(seed: number, stream: number, parents: number, total: number, zeroRate: number): Uint8Array {
  const counts = new Uint8Array(parents);
  if (parents === 0) return counts;
  const mean = total / (parents * (1 - zeroRate));
  const spread = Math.max(0, mean - 1);
  let sum = 0;
  for (let i = 0; i < parents; i++) {
    const rng = new Rng(seed, stream, i);
    if (rng.chance(zeroRate)) continue;
    const x = mean + (rng.next() - 0.5) * 2 * spread;
    const count = Math.max(1, Math.min(250, Math.floor(x + rng.next())));
    counts[i] = count;
    sum += count;
  }
  // Walk parents in a pseudo-random order fixing the difference one child at a time.
  let step = 0;
  while (sum !== total) {
    const i = hash3(seed, stream + 1000, step++) % parents;
    const current = counts[i] as number;
    if (sum < total && current > 0 && current < 250) { counts[i] = current + 1; sum++; }
    else if (sum > total && current > 1) { counts[i] = current - 1; sum--; }
    else if (sum < total && step > parents * 4 && current < 250) { counts[i] = current + 1; sum++; }
  }
  return counts;
}

/** Number of rows in a file that are injected dirty rows rather than structure. */
export function countSlots(total: number, slots: Slots[]): number {
  let n = 0;
  for (let row = 0; row < total; row++) if (slots.some((s) => s.has(row))) n++;
  return n;
}

/** Styles: the product of each style row (0 for an orphan row), indexed by style id - 1. */
export interface StyleLayout {
  productOfStyle: Int32Array;
  orphanSlots: Slots;
}

export function styleLayout(plan: Plan): StyleLayout {
  const total = plan.rows.styles;
  const orphanSlots = new Slots(total, scaledCount(QUIRKS.styleOrphans, plan.scale), 0.37);
  const structureRows = total - countSlots(total, [orphanSlots]);
  const perProduct = distribute(plan.seed, Stream.productStyles, plan.rows.product, structureRows, QUIRKS.productsWithoutStyles);
  const productOfStyle = new Int32Array(total);
  let product = 0;
  let left = 0;
  for (let row = 0; row < total; row++) {
    if (orphanSlots.has(row)) continue;
    while (left === 0) left = perProduct[product++] as number;
    productOfStyle[row] = product;
    left--;
  }
  return { productOfStyle, orphanSlots };
}
