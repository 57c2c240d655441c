// Style fields: photos and skus from the style row when it was fetched with
// them, otherwise through the loaders; the product through the loader.
import type { SkuResolvers, StyleResolvers } from '../../generated/graphql/resolvers.ts';

export const Style: StyleResolvers = {
  id: (style) => String(style.id),
  photos: (style, _args, { loaders }) => style.photos ?? loaders.photos.load(style.id),
  skus: (style, _args, { loaders }) => style.skus ?? loaders.skus.load(style.id),
  product: async (style, _args, { loaders }) => {
    const product = await loaders.product.load(style.productId);
    if (!product) throw new Error(`style ${style.id} points at missing product ${style.productId}`);
    return product;
  },
};

export const Sku: SkuResolvers = {
  id: (sku) => String(sku.id),
};
