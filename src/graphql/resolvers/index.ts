import type { Resolvers } from '../../generated/graphql/resolvers.ts';
import { DateTime, Money } from '../scalars.ts';
import { Mutation } from './mutation.ts';
import { Feature, Product } from './product.ts';
import { Query } from './query.ts';
import { Sku, Style } from './style.ts';

export const resolvers: Resolvers = { Query, Mutation, Product, Feature, Style, Sku, Money, DateTime };
