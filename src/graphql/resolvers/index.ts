import type { Resolvers } from '../../generated/graphql/resolvers.ts';
import { DateTime, Money } from '../scalars.ts';
import { Mutation } from './mutation.ts';
import { Feature, Product } from './product.ts';
import { Query } from './query.ts';
import { BrowseQuery, ProductConnection, ProductFacets, SearchConnection, SearchEdge } from './browse.ts';
import { Sku, Style } from './style.ts';
import { ProductChange, Subscription } from './subscription.ts';

export const resolvers: Resolvers = {
  Query: { ...Query, ...BrowseQuery }, Mutation, Product, Feature, Style, Sku, Money, DateTime,
  ProductConnection, SearchConnection, SearchEdge, ProductFacets, Subscription, ProductChange,
};
