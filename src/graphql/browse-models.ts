// What the browse resolvers hand to the connection types' field resolvers: a
// page, and the facets of the same filter (and search words), read on first
// use (totalCount and facets share that one statement).
import type { Edge, Facets, SearchEdge } from '../catalog/browse/browse.ts';

export interface PageInfoModel {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface ProductConnectionModel {
  edges: Edge[];
  pageInfo: PageInfoModel;
  facets: () => Promise<Facets>;
}

export interface SearchConnectionModel {
  edges: SearchEdge[];
  pageInfo: PageInfoModel;
  searched: string | null;
  facets: () => Promise<Facets>;
}
