// The legacy JSON of the simulator, written from ../shared/legacy-api.md and
// deliberately NOT from src/rest/shapes.ts: the simulator is the reference the
// project's own routes (and the sidecar) are compared with, so a slip in one
// is caught by the other. Key order is the contract's.
import type { SimProduct, SimStyle } from './catalogue.ts';

export interface ShapeOptions {
  campus: string;
  /** Styles with no photos / no skus show the live service's null placeholders. */
  emptyPlaceholders: boolean;
}

export function legacyListItem(p: SimProduct, o: ShapeOptions) {
  return {
    id: p.id,
    campus: o.campus,
    name: p.name,
    slogan: p.slogan,
    description: p.description,
    category: p.category,
    default_price: p.defaultPrice,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export function legacyDetail(p: SimProduct, o: ShapeOptions) {
  return { ...legacyListItem(p, o), features: p.features.map((f) => ({ feature: f.feature, value: f.value })) };
}

function legacyStyle(s: SimStyle, o: ShapeOptions) {
  const photos: { thumbnail_url: string | null; url: string | null }[] = s.photos.map((p) => ({ thumbnail_url: p.thumbnailUrl, url: p.url }));
  // Sku ids are integer-like keys: JSON.stringify writes them in ascending order, the sku id order.
  const skus: Record<string, { quantity: number | null; size: string | null }> = {};
  for (const sku of s.skus) skus[String(sku.id)] = { quantity: sku.quantity, size: sku.size };
  if (o.emptyPlaceholders && photos.length === 0) photos.push({ thumbnail_url: null, url: null });
  if (o.emptyPlaceholders && s.skus.length === 0) skus['null'] = { quantity: null, size: null };
  return {
    style_id: s.id,
    name: s.name,
    original_price: s.originalPrice,
    sale_price: s.salePrice,
    'default?': s.isDefault,
    photos,
    skus,
  };
}

export function legacyStyles(p: SimProduct, o: ShapeOptions) {
  return { product_id: String(p.id), results: p.styles.map((s) => legacyStyle(s, o)) };
}
