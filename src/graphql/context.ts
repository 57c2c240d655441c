// What every resolver receives: the per-request loaders and the shared services.
import type { CatalogLoaders } from '../catalog/loaders.ts';
import type { CatalogQueries } from '../catalog/queries.ts';
import type { CatalogService } from '../catalog/service.ts';

export interface GraphQLContext {
  requestId: string;
  loaders: CatalogLoaders;
  queries: CatalogQueries;
  service: CatalogService;
  limits: { maxPageSize: number };
}
