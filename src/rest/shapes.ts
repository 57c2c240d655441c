// The legacy JSON shapes, byte for byte (../shared/legacy-api.md): field names,
// order and types exactly as the live service sent them. Only reshaping here.
import type { Feature, Product, Style } from '../catalog/model/types.ts';

export interface LegacyOptions {
  campus: string;
  /** Styles with no photos/skus get the live service's null placeholders. */
  emptyPlaceholders: boolean;
}

export function listItem(product: Product, options: LegacyOptions) {
  return {
    id: product.id,
    campus: options.campus,
    name: product.name,
    slogan: product.slogan,
    description: product.description,
    category: product.category,
    default_price: product.defaultPrice,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}

export function productDetail(product: Product, features: Feature[], options: LegacyOptions) {
  return {
    ...listItem(product, options),
    features: features.map((f) => ({ feature: f.feature, value: f.value })),
  };
}

const PLACEHOLDER_PHOTOS = [{ thumbnail_url: null, url: null }];
const PLACEHOLDER_SKUS = { null: { quantity: null, size: null } };
const PLACEHOLDER_PHOTOS_JSON = JSON.stringify(PLACEHOLDER_PHOTOS);
const PLACEHOLDER_SKUS_JSON = JSON.stringify(PLACEHOLDER_SKUS);

export function productStyles(productId: number, styles: Style[], options: LegacyOptions) {
  return {
    product_id: String(productId),
    results: styles.map((style) => {
      const photos = (style.photos ?? []).map((p) => ({ thumbnail_url: p.thumbnailUrl, url: p.url }));
      // Integer-like keys keep ascending numeric order in JSON.stringify: sku id order.
      const skus: Record<string, { quantity: number; size: string }> = {};
      for (const sku of style.skus ?? []) skus[String(sku.id)] = { quantity: sku.quantity, size: sku.size };
      const empty = options.emptyPlaceholders;
      return {
        style_id: style.id,
        name: style.name,
        original_price: style.originalPrice,
        sale_price: style.salePrice,
        'default?': style.isDefault,
        photos: photos.length === 0 && empty ? PLACEHOLDER_PHOTOS : photos,
        skus: Object.keys(skus).length === 0 && empty ? PLACEHOLDER_SKUS : skus,
      };
    }),
  };
}

const text = JSON.stringify;
/** Strings JSON.stringify writes as they are, between quotes: no quote, backslash, control character or surrogate. */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
/** JSON.stringify of a string or null, without its call for the common string that needs no escape. */
const quoted = (value: string | null): string => (value === null ? 'null' : VERBATIM.test(value) ? `"${value}"` : text(value));

/** Whether skus are in strictly ascending order of non-negative ids: the order their keys (array indices) take in productStyles' object. */
function ascendingIds(skus: readonly { id: number }[]): boolean {
  if (skus.length > 0 && !(Number.isInteger(skus[0]!.id) && skus[0]!.id >= 0)) return false;
  for (let i = 1; i < skus.length; i++) if (!(Number.isInteger(skus[i]!.id) && skus[i]!.id > skus[i - 1]!.id)) return false;
  return true;
}

/**
 * JSON.stringify(productStyles(...)), written out directly: the same bytes
 * without building the reshaped objects first (the styles route's answer;
 * test/rest/shapes.test.ts holds the two equal). Skus out of id order (never
 * in the read model, which keeps them sorted) take productStyles itself,
 * whose object keys order them.
 */
export function productStylesJson(productId: number, styles: Style[], options: LegacyOptions): string {
  const empty = options.emptyPlaceholders;
  let out = `{"product_id":${text(String(productId))},"results":[`;
  for (let i = 0; i < styles.length; i++) {
    const style = styles[i]!;
    const skus = style.skus ?? [];
    if (!ascendingIds(skus)) return JSON.stringify(productStyles(productId, styles, options));
    out += `${i === 0 ? '' : ','}{"style_id":${style.id},"name":${quoted(style.name)},"original_price":${quoted(style.originalPrice)},"sale_price":${quoted(style.salePrice)},"default?":${style.isDefault},"photos":`;
    const photos = style.photos ?? [];
    if (photos.length === 0) out += empty ? PLACEHOLDER_PHOTOS_JSON : '[]';
    else {
      for (let j = 0; j < photos.length; j++) out += `${j === 0 ? '[' : ','}{"thumbnail_url":${quoted(photos[j]!.thumbnailUrl)},"url":${quoted(photos[j]!.url)}}`;
      out += ']';
    }
    out += ',"skus":';
    if (skus.length === 0) out += empty ? PLACEHOLDER_SKUS_JSON : '{}';
    else {
      for (let j = 0; j < skus.length; j++) out += `${j === 0 ? '{' : ','}"${skus[j]!.id}":{"quantity":${skus[j]!.quantity},"size":${quoted(skus[j]!.size)}}`;
      out += '}';
    }
    out += '}';
  }
  return `${out}]}`;
}
