// Style fields: prices as Money, photos, skus and product through the loaders.
import type { SkuResolvers, StyleResolvers } from '../../generated/graphql/resolvers.ts';
import { formatMoney } from '../../catalog/money.ts';

export const Style: StyleResolvers = {
  id: (style) => String(style.id),
  originalPrice: (style) => formatMoney(style.originalPrice),
  salePrice: (style) => (style.salePrice === null ? null : formatMoney(style.salePrice)),
  photos: (style, _args, { loaders }) => loaders.photos.load(style.id),
  skus: (style, _args, { loaders }) => loaders.skus.load(style.id),
  product: async (style, _args, { loaders }) => {
    const product = await loaders.product.load(style.productId);
    if (!product) throw new Error(`style ${style.id} points at missing product ${style.productId}`);
    return product;
  },
};

export const Sku: SkuResolvers = {
  id: (sku) => String(sku.id),
};
