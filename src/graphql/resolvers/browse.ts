// Browse and search: productConnection (filter, orderBy), search and
// productFacets. Arguments are checked (catalog/browse/browse-input.ts: a 400
// naming the argument), then one statement reads the page (catalog/browse/browse.ts)
// and the products prime the loaders. totalCount and facets of a connection
// share one more statement, run only when selected. Products shown with
// their styles carry their style documents from the same statement.
import type {
  ProductConnectionResolvers, ProductFacetsResolvers, QueryResolvers, SearchConnectionResolvers, SearchEdgeResolvers,
} from '../../generated/graphql/resolvers.ts';
import type { Edge, Facets } from '../../catalog/browse/browse.ts';
import type { Resolved } from '../../search/dictionary/resolved.ts';
import { checkFilter, DEFAULT_ORDER, type BrowseFilter, type BrowseOrder, searchWords } from '../../catalog/browse/browse-input.ts';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../context.ts';
import { fromValidationError } from '../errors.ts';
import { positive } from './query.ts';
import { selectsPath } from '../browse-lookahead.ts';
import { ValidationError } from '../../catalog/model/validation.ts';
import type { PageInfoModel } from '../browse-models.ts';

/** Input problems (catalog/browse/browse-input.ts, browse-cursor.ts) are the client's to fix: HTTP 400 naming the argument. */
async function checked<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // "after is not a cursor...", as every argument error of the API reads.
    if (error instanceof ValidationError) throw fromValidationError(error);
    throw error;
  }
}


/**
 * What the page's products should carry (browse-statements.ts PageExtras):
 * their style documents when the query shows their styles, only their
 * default style when it shows that alone (the Product resolvers take
 * embedded styles as they are), a snippet when the search's edges show one.
 */
function extrasOf(info: GraphQLResolveInfo) {
  const styles = selectsPath(info, ['edges', 'node', 'styles']);
  return {
    styles,
    defaultStyle: !styles && selectsPath(info, ['edges', 'node', 'defaultStyle']),
    snippets: selectsPath(info, ['edges', 'snippet']),
  };
}

function pageInfo(edges: readonly Edge[], hasNextPage: boolean): PageInfoModel {
  return { hasNextPage, endCursor: edges.at(-1)?.cursor ?? null };
}

/** The facets of a filter (and resolved search query), read once per connection, on first use. */
function lazyFacets(context: GraphQLContext, filter: BrowseFilter, searched?: Resolved | null): () => Promise<Facets> {
  let facets: Promise<Facets> | undefined;
  return () => (facets ??= context.browse.facets(filter, searched));
}

/**
 * What a cached answer must be dropped after: the plain id-ordered catalogue
 * shifts only when products are created or deleted (listing); a filter, an
 * ordering by another field, a search or facets can change with any write (browse).
 */
function markShown(context: GraphQLContext, filter: BrowseFilter, order: BrowseOrder): void {
  if (Object.keys(filter).length === 0 && order.field === 'ID') context.listing = true;
  else context.browsing = true;
}

export const BrowseQuery: Pick<QueryResolvers, 'productConnection' | 'search' | 'productFacets'> = {
  productConnection: (_root, args, context, info) => checked(async () => {
    const first = positive(args.first, 'first', 20, context.limits.maxPageSize);
    const filter = checkFilter(args.filter);
    const order: BrowseOrder = { field: args.orderBy?.field ?? DEFAULT_ORDER.field, direction: args.orderBy?.direction ?? DEFAULT_ORDER.direction };
    markShown(context, filter, order);
    const page = await context.browse.page(filter, order, first, args.after ?? undefined, extrasOf(info));
    context.loaders.primeProducts(page.edges.map((edge) => edge.node));
    return { edges: page.edges, pageInfo: pageInfo(page.edges, page.hasNextPage), facets: lazyFacets(context, filter) };
  }),

  search: (_root, args, context, info) => checked(async () => {
    const first = positive(args.first, 'first', 20, context.limits.maxPageSize);
    const words = searchWords(args.query);
    const filter = checkFilter(args.filter);
    context.browsing = true;
    const searched = await context.browse.resolve(words);
    const page = await context.browse.search(searched, filter, first, args.after ?? undefined, extrasOf(info));
    context.loaders.primeProducts(page.edges.map((edge) => edge.node));
    return { edges: page.edges, pageInfo: pageInfo(page.edges, page.hasNextPage), searched: page.searched, facets: lazyFacets(context, filter, searched) };
  }),

  productFacets: (_root, args, context) => checked(async () => {
    const filter = checkFilter(args.filter);
    const words = args.query === undefined || args.query === null ? undefined : searchWords(args.query);
    context.browsing = true;
    return context.browse.facets(filter, words === undefined ? undefined : await context.browse.resolve(words));
  }),
};

export const ProductConnection: ProductConnectionResolvers = {
  totalCount: async (connection) => (await connection.facets()).total,
  facets: (connection) => connection.facets(),
};

export const SearchConnection: SearchConnectionResolvers = {
  totalCount: async (connection) => (await connection.facets()).total,
  facets: (connection) => connection.facets(),
};

export const SearchEdge: SearchEdgeResolvers = {
  // Asked for, so the statement made it (browse-lookahead.ts); '' only if a fragment hid the selection from the lookahead.
  snippet: (edge) => edge.snippet ?? '',
};

export const ProductFacets: ProductFacetsResolvers = {};
