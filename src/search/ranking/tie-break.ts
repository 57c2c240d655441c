// The tie-break: what every rule left tied, products with a size in stock
// first (sizes, the browse row's sizes in stock:
// prisma/functions/refresh_product_browse.sql), then in search_order: the
// most popular first (how many related rows name the product), then the
// lowest id, as one number (prisma/functions/search_order.sql). The loader
// writes the browse rows in that order and cuts it into runs
// (search_bucket), which the bucket sort reads one by one (../bucket-sort.ts).
import type { RankingRule } from './rule.ts';

export const tieBreak: RankingRule = {
  name: 'tie-break',
  // A shopper can buy what is in stock: it comes before what is not, however popular.
  classes: ['in stock, the most popular, then the lowest id', 'none in stock, the most popular, then the lowest id'],
  reads: [
    { column: 'sizes', builtBy: 'prisma/functions/refresh_product_browse.sql' },
    { column: 'search_order', builtBy: 'prisma/functions/search_order.sql' },
    // The run a row's search_order falls in, among the runs rebuild_search_buckets.sql cuts at a load.
    { column: 'search_bucket', builtBy: 'prisma/functions/refresh_product_browse.sql' },
  ],
  admits: () => true,
  // Checked past the index (no index leads with stock): each level is read for its rows in stock, then for the others.
  select: (cls) => ({ where: [cls === 0 ? `b.sizes <> '{}'` : `b.sizes = '{}'`] }),
};
