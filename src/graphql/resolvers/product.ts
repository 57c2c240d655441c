// Product fields: scalars reshaped, relations through the loaders.
import type { FeatureResolvers, ProductResolvers } from '../../generated/graphql/resolvers.ts';
import { formatMoney } from '../../catalog/money.ts';
import type { Product as ProductModel } from '../../catalog/queries.ts';

export const Product: ProductResolvers = {
  id: (product) => String(product.id),
  defaultPrice: (product) => formatMoney(product.defaultPrice),
  features: (product, _args, { loaders }) => loaders.features.load(product.id),
  styles: (product, _args, { loaders }) => loaders.styles.load(product.id),
  defaultStyle: async (product, _args, { loaders }) => {
    const styles = await loaders.styles.load(product.id);
    return styles.find((style) => style.isDefault) ?? styles[0] ?? null;
  },
  related: async (product, _args, { loaders }) => {
    const rows = await loaders.related.load(product.id);
    const ids = [...new Set(rows.map((row) => row.relatedProductId))];
    const products = await loaders.product.loadMany(ids);
    return products.filter((p): p is ProductModel => p !== null && !(p instanceof Error));
  },
  relatedIds: async (product, _args, { loaders }) => (await loaders.related.load(product.id)).map((row) => String(row.relatedProductId)),
};

export const Feature: FeatureResolvers = {
  feature: (row) => row.feature,
  value: (row) => row.value,
};
