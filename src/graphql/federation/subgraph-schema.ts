// The executable schema: schema/*.graphql with the resolvers, and, with
// FEDERATION=on, as an Apollo Federation 2 subgraph (@apollo/subgraph's
// buildSubgraphSchema, with schema/federation/*.graphql: the @link, the @keys,
// and the `_entities` and `_service` fields it adds). Either way the same
// resolvers, loaders, limits, cost, caches and executor (graphql-jit or
// graphql-js) serve it; docs/federation.md says why it is a setting.
import fs from 'node:fs';
import path from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { type GraphQLSchema, parse } from 'graphql';
import { resolvers } from '../resolvers/index.ts';
import { readTypeDefs, SCHEMA_DIR } from '../schema.ts';
import { referenceResolvers } from './references.ts';
import { checkRepresentations } from './representations.ts';

export const FEDERATION_SCHEMA_DIR = path.join(SCHEMA_DIR, 'federation');

export function catalogueSchema(options: { federation: boolean }): GraphQLSchema {
  if (!options.federation) return makeExecutableSchema({ typeDefs: readTypeDefs(), resolvers });
  const typeDefs = parse(`${readTypeDefs()}\n${readTypeDefs(FEDERATION_SCHEMA_DIR)}`);
  const federated = {
    ...resolvers,
    Product: { ...resolvers.Product, ...referenceResolvers.Product },
    Style: { ...resolvers.Style, ...referenceResolvers.Style },
  };
  // codegen's Resolvers type is stricter than @apollo/subgraph's map (which it satisfies at run time).
  const schema = buildSubgraphSchema({ typeDefs, resolvers: federated as unknown as GraphQLResolverMap<unknown> });
  checkRepresentations(schema);
  return schema;
}
