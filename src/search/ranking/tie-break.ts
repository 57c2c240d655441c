// The tie-break: what every rule left tied is read in search_order, the
// most popular first (how many related rows name the product), then the
// lowest id, as one number (prisma/functions/search_order.sql). The loader
// writes the browse rows in that order and cuts it into runs
// (search_bucket), which the bucket sort reads one by one (../bucket-sort.ts).
import type { RankingRule } from './rule.ts';

export const tieBreak: RankingRule = {
  name: 'tie-break',
  classes: ['the most popular, then the lowest id'],
  reads: [
    { column: 'search_order', builtBy: 'prisma/functions/search_order.sql' },
    // The run a row's search_order falls in, among the runs rebuild_search_buckets.sql cuts at a load.
    { column: 'search_bucket', builtBy: 'prisma/functions/refresh_product_browse.sql' },
  ],
  admits: () => true,
  select: () => ({}),
};
