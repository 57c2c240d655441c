// Product fields: relations through the loaders.
import type { GraphQLResolveInfo } from 'graphql';
import type { FeatureResolvers, ProductResolvers } from '../../generated/graphql/resolvers.ts';
import type { Product as ProductRow, Style } from '../../catalog/types.ts';
import type { GraphQLContext } from '../context.ts';
import { selectsAny } from '../lookahead.ts';

const MEDIA = new Set(['photos', 'skus']);

/** A product's styles; with photos and skus in the same statement when the query wants them. */
function stylesOf(product: ProductRow, info: GraphQLResolveInfo, { loaders }: GraphQLContext): Style[] | Promise<Style[]> {
  if (product.styles) return product.styles;
  return (selectsAny(info, MEDIA) ? loaders.stylesWithMedia : loaders.styles).load(product.id);
}

export const Product: ProductResolvers = {
  id: (product) => String(product.id),
  features: (product, _args, { loaders }) => loaders.features.load(product.id),
  styles: (product, _args, context, info) => stylesOf(product, info, context),
  defaultStyle: async (product, _args, context, info) => {
    const styles = await stylesOf(product, info, context);
    return styles.find((style) => style.isDefault) ?? styles[0] ?? null;
  },
  related: async (product, _args, { loaders }) => {
    const rows = await loaders.related.load(product.id);
    const ids = [...new Set(rows.map((row) => row.relatedProductId))];
    const products = await loaders.product.loadMany(ids);
    return products.filter((p): p is ProductRow => p !== null && !(p instanceof Error));
  },
  relatedIds: async (product, _args, { loaders }) => (await loaders.related.load(product.id)).map((row) => String(row.relatedProductId)),
};

export const Feature: FeatureResolvers = {
  feature: (row) => row.feature,
  value: (row) => row.value,
};
