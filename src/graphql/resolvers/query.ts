// Root reads: resolve arguments, then ask the loaders and queries
// (productConnection, search and facets: browse.ts).
import type DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { CatalogLoaders } from '../../catalog/reads/loaders.ts';
import type { Product } from '../../catalog/model/types.ts';
import type { QueryResolvers } from '../../generated/graphql/resolvers.ts';
import { aboveMaximum, badInput, tooManyEntries } from '../errors.ts';
import { parseId } from '../ids.ts';
import { selectsAny, STYLE_FIELDS } from '../lookahead.ts';

const PAGE_FIELDS = new Set(['features', 'related', 'relatedIds']);

/**
 * The loader that reads a product with what the query shows of it in one
 * statement: everything a product page shows (its styles with their media,
 * features, related ids), the styles alone, or the product row.
 */
export function productLoader(loaders: CatalogLoaders, info: GraphQLResolveInfo): DataLoader<number, Product | null> {
  if (!selectsAny(info, STYLE_FIELDS)) return loaders.product;
  return selectsAny(info, PAGE_FIELDS) ? loaders.productPage : loaders.productWithStyles;
}

const MAX_IDS = 100;

/** A page size: a positive integer up to `max`, `fallback` when not given. */
export function positive(value: number | null | undefined, name: string, fallback: number, max?: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw badInput(`${name} must be a positive integer (got ${n})`, name);
  if (max !== undefined && n > max) throw aboveMaximum(name, max, n);
  return n;
}

export const Query: Omit<QueryResolvers, 'productConnection' | 'search' | 'productFacets'> = {
  // A product page (the product, its styles with photos and skus, features, related ids) is one statement.
  product: (_root, { id }, { loaders }, info) => productLoader(loaders, info).load(parseId(id)),

  products: async (_root, { page, count }, context) => {
    const { pages, loaders, limits } = context;
    context.listing = true;
    const rows = await pages.page(positive(page, 'page', 1), positive(count, 'count', 5, limits.maxPageSize));
    loaders.primeProducts(rows);
    return rows;
  },

  productsByIds: async (_root, { ids }, { loaders }) => {
    if (ids.length > MAX_IDS) throw tooManyEntries('ids', MAX_IDS, ids.length);
    const products = await loaders.product.loadMany(ids.map((id) => parseId(id, 'ids')));
    return products.map((p) => {
      if (p instanceof Error) throw p;
      return p;
    });
  },
};
