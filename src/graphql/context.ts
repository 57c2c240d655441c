// What every resolver receives: the per-request loaders and the shared services.
import type { CatalogLoaders } from '../catalog/loaders.ts';
import type { ProductPages } from '../catalog/pages.ts';
import type { CatalogQueries } from '../catalog/queries.ts';
import type { CatalogService } from '../catalog/service.ts';

export interface GraphQLContext {
  requestId: string;
  loaders: CatalogLoaders;
  queries: CatalogQueries;
  pages: ProductPages;
  service: CatalogService;
  limits: { maxPageSize: number };
  /** Set by list queries: the response shifts when products are created or deleted. */
  listing: boolean;
  /** The request's Idempotency-Key header, as sent (createProduct checks it). */
  idempotencyKeyHeader: string | string[] | undefined;
}
