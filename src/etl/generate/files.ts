// Writers for the six legacy files. Each returns what it wrote: rows, the rows
// a correct loader must load, and how many times each quirk was injected.
import { Rng, Stream, hash3 } from './random.ts';
import { type FileName, type Plan, QUIRKS, Slots, countSlots, distribute, scaledCount, styleLayout } from './plan.ts';
import { LineSink, quote } from './sink.ts';
import { featureValues, photoUrls, productBasics, productText, styleName } from './values.ts';
import { sizesFor } from './vocabulary.ts';

export interface FileReport {
  file: FileName;
  rows: number;
  expectedLoaded: number;
  quirks: Record<string, number>;
}

export type OnProgress = (rowsWritten: number) => void;

export const HEADERS: Record<FileName, string> = {
  product: 'id,name,slogan,description,category,default_price',
  features: 'id,product_id,feature,value',
  styles: 'id,productId,name,sale_price,original_price,default_style',
  photos: 'id,styleId,url,thumbnail_url',
  skus: 'id,styleId,size,quantity',
  related: 'id,current_product_id,related_product_id',
};

const PROGRESS_EVERY = 50_000;

class Tally {
  readonly counts: Record<string, number> = {};
  add(name: string, n = 1): void {
    this.counts[name] = (this.counts[name] ?? 0) + n;
  }
  get(name: string): number {
    return this.counts[name] ?? 0;
  }
}

/** Pads a number with stray whitespace, one of the two ways the legacy files do. */
function padded(value: number, row: number): string {
  return row % 2 === 0 ? ` ${value}` : `${value} `;
}

/** An id that no parent has: past the end of the parent range. */
function missingParent(seed: number, row: number, parents: number): number {
  return parents + 1 + (hash3(seed, Stream.orphan, row) % Math.max(10, parents));
}

function writeProducts(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.product;
  const whitespace = new Slots(total, scaledCount(QUIRKS.productPriceWhitespace, plan.scale), 0.5);
  for (let row = 0; row < total; row++) {
    const id = row + 1;
    const basics = productBasics(plan.seed, id);
    const text = productText(basics, plan.text);
    let price = String(basics.price);
    if (whitespace.has(row)) { price = padded(basics.price, row); tally.add('priceWhitespace'); }
    sink.line(`${id},${quote(text.name)},${quote(text.slogan)},${quote(text.description)},${quote(basics.category)},${price}`);
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('loaded', total);
  return tally;
}

function writeFeatures(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.features;
  const products = plan.rows.product;
  const orphans = new Slots(total, scaledCount(QUIRKS.featureOrphans, plan.scale), 0.21);
  const perProduct = distribute(plan.seed, Stream.productFeatures, products, total - countSlots(total, [orphans]), 0.01);
  let product = 0;
  let left = 0;
  let indexInProduct = 0;
  let start = 0;
  for (let row = 0; row < total; row++) {
    const id = row + 1;
    const rng = new Rng(plan.seed, Stream.feature, id);
    let productId: number;
    if (orphans.has(row)) {
      productId = missingParent(plan.seed, row, products);
      tally.add('orphan');
    } else {
      while (left === 0) { left = perProduct[product++] as number; indexInProduct = 0; start = hash3(plan.seed, Stream.productFeatures, product) % 97; }
      productId = product;
      left--;
    }
    const { feature, value } = featureValues(rng, indexInProduct++, start);
    const isNull = value === null || rng.chance(QUIRKS.featureValueNull);
    if (isNull) tally.add('nullValue');
    sink.line(`${id},${productId},${quote(feature)},${isNull ? 'null' : quote(value as string)}`);
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('loaded', total - tally.get('orphan'));
  return tally;
}

function writeStyles(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.styles;
  const products = plan.rows.product;
  const { productOfStyle } = styleLayout(plan);
  const whitespace = new Slots(total, scaledCount(QUIRKS.stylePriceWhitespace, plan.scale), 0.71);
  let previousProduct = -1;
  const withStyles = new Set<number>();
  for (let row = 0; row < total; row++) {
    const id = row + 1;
    const rng = new Rng(plan.seed, Stream.style, id);
    let productId = productOfStyle[row] as number;
    const orphan = productId === 0;
    if (orphan) { productId = missingParent(plan.seed, row, products); tally.add('orphan'); }
    const firstOfProduct = productId !== previousProduct;
    previousProduct = productId;
    if (!orphan) withStyles.add(productId);
    const original = orphan ? rng.int(20, 300) : productBasics(plan.seed, productId).price;
    const onSale = !rng.chance(QUIRKS.saleNull);
    const sale = onSale ? String(Math.max(1, Math.round(original * (0.5 + rng.next() * 0.4)))) : 'null';
    if (!onSale) tally.add('nullSalePrice');
    const isDefault = firstOfProduct ? rng.chance(0.95) : rng.chance(0.03);
    let originalText = String(original);
    if (whitespace.has(row)) { originalText = padded(original, row); tally.add('priceWhitespace'); }
    sink.line(`${id},${productId},${quote(styleName(rng))},${sale},${originalText},${isDefault ? 1 : 0}`);
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('productsWithoutStyles', products - withStyles.size);
  tally.add('loaded', total - tally.get('orphan'));
  return tally;
}

/** Photos and skus both hang off styles; this walks the real (non-orphan) styles. */
function childrenOfStyles(plan: Plan, total: number, stream: number, zeroRate: number, orphans: Slots) {
  const { productOfStyle } = styleLayout(plan);
  const realStyles: number[] = [];
  for (let i = 0; i < productOfStyle.length; i++) if (productOfStyle[i] !== 0) realStyles.push(i + 1);
  const perStyle = distribute(plan.seed, stream, realStyles.length, total - countSlots(total, [orphans]), zeroRate);
  let withoutChildren = 0;
  for (const count of perStyle) if (count === 0) withoutChildren++;
  return { productOfStyle, realStyles, perStyle, withoutChildren };
}

function writePhotos(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.photos;
  const orphans = new Slots(total, scaledCount(QUIRKS.photoOrphans, plan.scale), 0.43);
  const unterminated = new Slots(total, scaledCount(QUIRKS.photoUnterminatedQuote, plan.scale), 0.29);
  const gaps = new Slots(total, scaledCount(QUIRKS.photoIdGaps, plan.scale), 0.77);
  const { realStyles, perStyle, withoutChildren } = childrenOfStyles(plan, total, Stream.stylePhotos, QUIRKS.stylesWithoutPhotos, orphans);
  tally.add('stylesWithoutPhotos', withoutChildren);
  let styleIndex = 0;
  let left = 0;
  let id = 0;
  for (let row = 0; row < total; row++) {
    id += 1;
    if (gaps.has(row)) { id += 1; tally.add('idGap'); }
    let styleId: number;
    if (orphans.has(row)) {
      styleId = missingParent(plan.seed, row, plan.rows.styles);
      tally.add('orphan');
    } else {
      while (left === 0) left = perStyle[styleIndex++] as number;
      styleId = realStyles[styleIndex - 1] as number;
      left--;
    }
    const { url, thumbnailUrl } = photoUrls(plan.seed, id);
    if (unterminated.has(row) && !orphans.has(row)) {
      // Half the broken rows lose the closing quote of the last field, the
      // other half the one in the middle; a loader repairs both (a URL never
      // holds a quote, so the line splits one way only).
      if (tally.get('unterminatedAtEnd') <= tally.get('unterminatedInMiddle')) {
        sink.line(`${id},${styleId},${quote(url)},"${thumbnailUrl}`);
        tally.add('unterminatedAtEnd');
      } else {
        sink.line(`${id},${styleId},"${url},${quote(thumbnailUrl)}`);
        tally.add('unterminatedInMiddle');
      }
    } else {
      sink.line(`${id},${styleId},${quote(url)},${quote(thumbnailUrl)}`);
    }
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('maxId', id);
  tally.add('loaded', total - tally.get('orphan'));
  return tally;
}

function writeSkus(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.skus;
  const orphans = new Slots(total, scaledCount(QUIRKS.skuOrphans, plan.scale), 0.53);
  const whitespace = new Slots(total, scaledCount(QUIRKS.skuQuantityWhitespace, plan.scale), 0.11);
  const { productOfStyle, realStyles, perStyle, withoutChildren } = childrenOfStyles(plan, total, Stream.styleSkus, QUIRKS.stylesWithoutSkus, orphans);
  tally.add('stylesWithoutSkus', withoutChildren);
  let styleIndex = 0;
  let left = 0;
  let sizes: readonly string[] = [];
  let sizeCursor = 0;
  for (let row = 0; row < total; row++) {
    const id = row + 1;
    const rng = new Rng(plan.seed, Stream.sku, id);
    let styleId: number;
    if (orphans.has(row)) {
      styleId = missingParent(plan.seed, row, plan.rows.styles);
      tally.add('orphan');
    } else {
      if (left === 0) {
        while (left === 0) left = perStyle[styleIndex++] as number;
        const style = realStyles[styleIndex - 1] as number;
        sizes = sizesFor(productBasics(plan.seed, productOfStyle[style - 1] as number).category);
        sizeCursor = rng.int(0, sizes.length - 1);
      }
      styleId = realStyles[styleIndex - 1] as number;
      left--;
    }
    // Sizes run in order and wrap around, so big styles repeat a size (two XL skus).
    const size = sizes.length > 0 ? (sizes[sizeCursor++ % sizes.length] as string) : 'One Size';
    const quantity = rng.int(0, 60);
    let quantityText = String(quantity);
    if (whitespace.has(row)) { quantityText = padded(quantity, row); tally.add('quantityWhitespace'); }
    sink.line(`${id},${styleId},${quote(size)},${quantityText}`);
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('loaded', total - tally.get('orphan'));
  return tally;
}

function writeRelated(plan: Plan, sink: LineSink, progress: OnProgress): Tally {
  const tally = new Tally();
  const total = plan.rows.related;
  const products = plan.rows.product;
  const orphans = new Slots(total, scaledCount(QUIRKS.relatedOrphans, plan.scale), 0.17);
  const zero = new Slots(total, scaledCount(QUIRKS.relatedZero, plan.scale), 0.61);
  const missing = new Slots(total, scaledCount(QUIRKS.relatedMissingTarget, plan.scale), 0.89);
  const perProduct = distribute(plan.seed, Stream.productRelated, products, total - countSlots(total, [orphans, zero, missing]), 0.005);
  let product = 0;
  let left = 0;
  let previousTarget = 0;
  for (let row = 0; row < total; row++) {
    const id = row + 1;
    const rng = new Rng(plan.seed, Stream.related, id);
    let current: number;
    let target: number;
    if (orphans.has(row)) {
      current = missingParent(plan.seed, row, products);
      target = rng.int(1, products);
      tally.add('orphan');
    } else if (zero.has(row) || missing.has(row)) {
      current = Math.max(1, product);
      target = zero.has(row) ? 0 : missingParent(plan.seed, row, products);
      tally.add(zero.has(row) ? 'zeroTarget' : 'missingTarget');
    } else {
      if (left === 0) { while (left === 0) left = perProduct[product++] as number; previousTarget = 0; }
      current = product;
      left--;
      if (previousTarget !== 0 && rng.chance(QUIRKS.relatedDuplicate)) {
        target = previousTarget;
        tally.add('duplicatePair');
      } else {
        target = rng.int(1, products - 1);
        if (target >= current) target += 1;
      }
      previousTarget = target;
    }
    sink.line(`${id},${current},${target}`);
    if (row % PROGRESS_EVERY === 0) progress(row);
  }
  tally.add('loaded', total - tally.get('orphan') - tally.get('zeroTarget') - tally.get('missingTarget'));
  return tally;
}

const WRITERS: Record<FileName, (plan: Plan, sink: LineSink, progress: OnProgress) => Tally> = {
  product: writeProducts,
  features: writeFeatures,
  styles: writeStyles,
  photos: writePhotos,
  skus: writeSkus,
  related: writeRelated,
};

export function writeLegacyFile(file: FileName, plan: Plan, path: string, progress: OnProgress): FileReport {
  const sink = new LineSink(path);
  sink.line(HEADERS[file]);
  const tally = WRITERS[file](plan, sink, progress);
  sink.close();
  progress(plan.rows[file]);
  const { loaded, ...quirks } = tally.counts;
  return { file, rows: plan.rows[file], expectedLoaded: loaded ?? 0, quirks };
}
