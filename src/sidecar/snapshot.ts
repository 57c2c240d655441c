// A product as the legacy service shows it on its three product routes
// (detail, styles, related: ../shared/legacy-api.md), parsed into what the
// local tables hold, with a hash of the bytes it was read from: the sync
// skips a product whose hash has not changed since it last applied it.
import crypto from 'node:crypto';
import type { SourceSnapshot, SourceStyle } from '../catalog/writes/source.ts';

export type { SourceSnapshot, SourceStyle } from '../catalog/writes/source.ts';

export class SnapshotFormatError extends Error {
  constructor(id: number, what: string) {
    super(`legacy product ${id}: unexpected answer (${what})`);
    this.name = 'SnapshotFormatError';
  }
}

export function hashOf(detail: string, styles: string, related: string): string {
  return crypto.createHash('sha256').update(detail).update('\u0000').update(styles).update('\u0000').update(related).digest('hex');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

/** A price as the legacy service writes it ("140.00"), or a number; two decimals either way. */
function price(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value.toFixed(2);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value).toFixed(2);
  return undefined;
}

/** Parses the three bodies of product `id`; SnapshotFormatError when they are not the contract's shapes. */
export function parseSnapshot(id: number, detailBody: string, stylesBody: string, relatedBody: string): SourceSnapshot {
  const fail = (what: string): never => { throw new SnapshotFormatError(id, what); };
  let detail: unknown, styles: unknown, related: unknown;
  try {
    detail = JSON.parse(detailBody);
    styles = JSON.parse(stylesBody);
    related = JSON.parse(relatedBody);
  } catch {
    return fail('not JSON');
  }
  if (!isObject(detail) || detail.id !== id) return fail('detail');
  for (const field of ['name', 'slogan', 'description', 'category', 'created_at', 'updated_at'] as const) {
    if (typeof detail[field] !== 'string') fail(`detail.${field}`);
  }
  const defaultPrice = price(detail.default_price) ?? fail('detail.default_price');
  const features = Array.isArray(detail.features) ? detail.features : fail('detail.features');
  const parsedFeatures = features.map((f) => {
    if (!isObject(f) || typeof f.feature !== 'string' || !(typeof f.value === 'string' || f.value === null)) return fail('a feature');
    return { feature: f.feature, value: f.value };
  });
  if (!isObject(styles) || !Array.isArray(styles.results)) return fail('styles');
  const parsedStyles = styles.results.map((s): SourceStyle => {
    if (!isObject(s) || !isInt(s.style_id) || typeof s.name !== 'string') return fail('a style');
    const photos = Array.isArray(s.photos) ? s.photos : fail('style photos');
    const skus = isObject(s.skus) ? s.skus : fail('style skus');
    return {
      id: s.style_id,
      name: s.name,
      originalPrice: price(s.original_price) ?? fail('style original_price'),
      salePrice: s.sale_price === null || s.sale_price === undefined ? null : price(s.sale_price) ?? fail('style sale_price'),
      isDefault: s['default?'] === true,
      // The live service's placeholder for "no photos" ({thumbnail_url: null, url: null}) is no photo.
      photos: photos.filter((p) => isObject(p) && typeof p.url === 'string' && typeof p.thumbnail_url === 'string')
        .map((p) => ({ url: (p as Record<string, string>).url!, thumbnailUrl: (p as Record<string, string>).thumbnail_url! })),
      // Likewise {"null": {quantity: null, size: null}} is no sku.
      skus: Object.entries(skus).filter(([key, sku]) => /^\d+$/.test(key) && isObject(sku) && typeof sku.size === 'string' && isInt(sku.quantity))
        .map(([key, sku]) => ({ id: Number(key), size: (sku as { size: string }).size, quantity: (sku as { quantity: number }).quantity })),
    };
  });
  if (!Array.isArray(related) || !related.every(isInt)) return fail('related');
  return {
    id,
    name: detail.name as string,
    slogan: detail.slogan as string,
    description: detail.description as string,
    category: detail.category as string,
    defaultPrice,
    createdAt: detail.created_at as string,
    updatedAt: detail.updated_at as string,
    features: parsedFeatures,
    styles: parsedStyles,
    related: (related as number[]).filter((r) => r > 0),
    hash: hashOf(detailBody, stylesBody, relatedBody),
  };
}
