// What every resolver receives: the per-request loaders and the shared services.
import type { ExecutionResult } from 'graphql';
import type { Caller } from '../auth/access.ts';
import { BROWSE_TAG, LISTING_TAG, productTag } from '../cache/response-cache.ts';
import type { CatalogBrowse } from '../catalog/browse/browse.ts';
import type { CatalogLoaders } from '../catalog/reads/loaders.ts';
import type { ProductPages } from '../catalog/reads/listing-anchors.ts';
import type { CatalogQueries } from '../catalog/reads/queries.ts';
import type { ProductWrites } from '../catalog/writes/service.ts';
import type { OperationRecord } from '../observability/graphql-operations.ts';
import type { RateLimitDecision } from '../ratelimit/limiter.ts';

export interface GraphQLContext {
  requestId: string;
  /** What ran, for the request's completion log line and metrics (filled in by operationRecordPlugin). */
  operation: OperationRecord;
  loaders: CatalogLoaders;
  queries: CatalogQueries;
  pages: ProductPages;
  service: ProductWrites;
  limits: { maxPageSize: number };
  /** Browse pages, searches and facets (src/catalog/browse/browse.ts). */
  browse: CatalogBrowse;
  /** Set by list queries: the response shifts when products are created or deleted. */
  listing: boolean;
  /** Set by filtered or reordered pages, searches and facets: the response can change with any write. */
  browsing?: boolean;
  /** Who sent the request: their API key, if any, and address (the rate-limit budget). */
  caller: Caller;
  /** The request's Idempotency-Key header, as sent (createProduct checks it). */
  idempotencyKeyHeader: string | string[] | undefined;
  /**
   * Set when the stages' runner (fast-path.ts) hands the request to Apollo: what it
   * already took from the caller's budget (undefined: no budget), and whether
   * it already asked the response cache (a miss) for it, and the result it
   * executed when that had errors (Apollo words them; executing again would
   * run every statement twice, and a refused expensive read would wait twice).
   */
  handedOver?: { decision: RateLimitDecision | undefined; cacheAsked: boolean; executed?: ExecutionResult };
  /** The stages the request ran, in order (stages.ts), when it is traced. */
  stages?: string[];
  /** The tags of a response served from the response cache (its loaders read nothing). */
  servedTags?: readonly string[];
}

/** The response-cache tags of what the operation showed: every product its loaders read, listings, and browse answers. */
export function shownTags(context: GraphQLContext): string[] {
  if (context.servedTags) return [...context.servedTags];
  const tags = [...context.loaders.touchedProducts].map(productTag);
  if (context.listing) tags.push(LISTING_TAG);
  if (context.browsing) tags.push(BROWSE_TAG);
  return tags;
}
