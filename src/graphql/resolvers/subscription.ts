// Subscription fields. The live hub (src/graphql/subscriptions/hub.ts) runs a
// subscriber's selection with the event as the root value, on the same
// loaders as queries: `product` is read exactly as `Query.product` reads it.
import type { ProductChangeResolvers, SubscriptionResolvers } from '../../generated/graphql/resolvers.ts';
import type { ProductChangeEvent } from '../subscriptions/event.ts';
import { productLoader } from './query.ts';

export const Subscription: SubscriptionResolvers = {
  productChanged: {
    // Subscribing is the hub's (it shares one execution among subscribers);
    // graphql-js's own subscribe() is never given this schema's subscriptions.
    subscribe: () => {
      throw new Error('productChanged is served by the live hub (src/graphql/subscriptions/), not graphql-js subscribe()');
    },
    resolve: (event: ProductChangeEvent) => event,
  },
};

export const ProductChange: ProductChangeResolvers = {
  id: (event) => String(event.id),
  product: (event, _args, { loaders }, info) => productLoader(loaders, info).load(event.id),
};
