// What every resolver receives: the per-request loaders and the shared services.
import type { Caller } from '../auth/access.ts';
import type { CatalogLoaders } from '../catalog/loaders.ts';
import type { ProductPages } from '../catalog/pages.ts';
import type { CatalogQueries } from '../catalog/queries.ts';
import type { CatalogService } from '../catalog/service.ts';
import type { OperationRecord } from '../observability/graphql-operations.ts';

export interface GraphQLContext {
  requestId: string;
  /** What ran, for the request's completion log line and metrics (filled in by operationRecordPlugin). */
  operation: OperationRecord;
  loaders: CatalogLoaders;
  queries: CatalogQueries;
  pages: ProductPages;
  service: CatalogService;
  limits: { maxPageSize: number };
  /** Set by list queries: the response shifts when products are created or deleted. */
  listing: boolean;
  /** Who sent the request: their API key, if any, and address (the rate-limit budget). */
  caller: Caller;
  /** The request's Idempotency-Key header, as sent (createProduct checks it). */
  idempotencyKeyHeader: string | string[] | undefined;
}
