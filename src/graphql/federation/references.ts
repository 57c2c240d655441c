// How the subgraph answers `_entities`: a reference `{ __typename: "Product",
// id }` from another subgraph (through the router) is loaded by the same
// per-request DataLoaders as every other read, so any number of references in
// one `_entities` call is one statement per type (and per level below them).
import type { Product, Style } from '../../catalog/model/types.ts';
import type { GraphQLContext } from '../context.ts';
import { parseId } from '../ids.ts';

interface Reference {
  id: string;
}

/**
 * @apollo/subgraph marks what a reference resolves to with its __typename (a
 * property it defines on the object). Loader rows are shared (by requests and
 * by this request's other fields), so it gets a copy of its own.
 */
const own = <T extends object>(row: T | null): T | null => (row ? { ...row } : null);

export const referenceResolvers = {
  Product: {
    __resolveReference: async (reference: Reference, { loaders }: GraphQLContext): Promise<Product | null> =>
      own(await loaders.product.load(parseId(reference.id))),
  },
  Style: {
    __resolveReference: async (reference: Reference, { loaders }: GraphQLContext): Promise<Style | null> =>
      own(await loaders.style.load(parseId(reference.id))),
  },
};
