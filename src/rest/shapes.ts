// The legacy JSON shapes, byte for byte (../shared/legacy-api.md): field names,
// order and types exactly as the live service sent them. Only reshaping here.
import type { Feature, Product, Style } from '../catalog/types.ts';

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
