// Product fields: relations through the loaders.
import type { GraphQLResolveInfo } from 'graphql';
import type { FeatureResolvers, ProductResolvers } from '../../generated/graphql/resolvers.ts';
import type { Product as ProductRow, Style } from '../../catalog/model/types.ts';
import { type PageKey, pageOfList } from '../../catalog/reads/nested-pages.ts';
import type { GraphQLContext } from '../context.ts';
import { selectsAny, STYLE_FIELDS } from '../lookahead.ts';
import { parseId } from '../ids.ts';
import { positive } from './query.ts';

const MEDIA = new Set(['photos', 'skus']);

/** The product ids of a product's related rows, in row order with duplicates: from its page's statement when it was read with it. */
async function relatedIdsOf(product: ProductRow, loaders: GraphQLContext['loaders']): Promise<number[]> {
  return product.relatedIds ?? (await loaders.related.load(product.id)).map((row) => row.relatedProductId);
}

/** A product's styles; with photos and skus in the same statement when the query wants them. */
function stylesOf(product: ProductRow, info: GraphQLResolveInfo, { loaders }: GraphQLContext): Style[] | Promise<Style[]> {
  if (product.styles) return product.styles;
  return (selectsAny(info, MEDIA) ? loaders.stylesWithMedia : loaders.styles).load(product.id);
}

/** The page `first`/`after` ask for, or undefined when neither is given (the whole list: the unpaged field as it always was). */
function pageKey(product: ProductRow, args: { first?: number | null; after?: string | null }, { limits }: GraphQLContext): PageKey | undefined {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (!given(args.first) && !given(args.after)) return undefined;
  return {
    productId: product.id,
    first: given(args.first) ? positive(args.first, 'first', 0, limits.maxPageSize) : null,
    after: args.after ? parseId(args.after, 'after') : null,
  };
}

export const Product: ProductResolvers = {
  id: (product) => String(product.id),
  features: (product, _args, { loaders }) => product.features ?? loaders.features.load(product.id),
  styles: async (product, args, context, info) => {
    const page = pageKey(product, args, context);
    if (!page) return stylesOf(product, info, context);
    // With photos or skus, styles come from the product's style document, one
    // row a product that Postgres reads faster whole than paged
    // (src/catalog/reads/nested-pages.ts; docs/graphql.md "Nested paging"): paged here.
    if (product.styles || selectsAny(info, MEDIA)) return pageOfList(await stylesOf(product, info, context), page.first, page.after);
    return context.loaders.stylePages.load(page);
  },
  defaultStyle: async (product, _args, context, info) => {
    // Read alone with the product (a page of cards): the style document's own choice, made by the same rule.
    if (product.defaultStyle !== undefined) return product.defaultStyle;
    const styles = await stylesOf(product, info, context);
    return styles.find((style) => style.isDefault) ?? styles[0] ?? null;
  },
  related: async (product, args, context, info) => {
    const { loaders } = context;
    const page = pageKey(product, args, context);
    if (page) return loaders.relatedPages.load(page);
    const ids = [...new Set(await relatedIdsOf(product, loaders))];
    // Cards with a style: each related product with its style document, in the same statement.
    const products = await (selectsAny(info, STYLE_FIELDS) ? loaders.productWithStyles : loaders.product).loadMany(ids);
    return products.filter((p): p is ProductRow => p !== null && !(p instanceof Error));
  },
  relatedIds: async (product, _args, { loaders }) => (await relatedIdsOf(product, loaders)).map(String),
};

export const Feature: FeatureResolvers = {
  feature: (row) => row.feature,
  value: (row) => row.value,
};
