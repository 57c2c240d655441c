// Apollo Server for the catalogue schema, mounted on Fastify.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { FastifyInstance } from 'fastify';
import type { GraphQLContext } from './context.ts';
import { logInternalErrors, makeFormatError } from './errors.ts';
import { resolvers } from './resolvers/index.ts';
import { jitGateway } from './jit.ts';
import { knownOperationTypes } from './known-operation-types.ts';
import { responseCachePlugin } from './response-cache-plugin.ts';
import { cacheControlPlugin } from './cache-control-plugin.ts';
import { trustedDocumentsPlugin } from './trusted-documents.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { readTypeDefs } from './schema.ts';

export interface ApolloOptions {
  exposeErrors: boolean;
  jit: boolean;
  cache: ResponseCache | undefined;
  /** Where persisted query hashes live; undefined: Apollo's in-process LRU. */
  persistedQueries: { cache: KeyValueCache<string> | undefined; ttlSeconds: number };
  /** When set, only these documents (hex sha256 → text) run. */
  trustedDocuments: Map<string, string> | undefined;
}

export function createApollo(app: FastifyInstance, options: ApolloOptions): ApolloServer<GraphQLContext> {
  const schema = makeExecutableSchema({ typeDefs: readTypeDefs(), resolvers });
  return new ApolloServer<GraphQLContext>({
    ...(options.jit ? { gateway: jitGateway(schema) } : { schema }),
    // The API has no cookie-based auth, and GET can never run a mutation, so
    // CSRF preflight enforcement would only break plain `curl` GETs.
    csrfPrevention: false,
    persistedQueries: { ttl: options.persistedQueries.ttlSeconds, ...(options.persistedQueries.cache ? { cache: options.persistedQueries.cache } : {}) },
    includeStacktraceInErrorResponses: false,
    validationRules: [knownOperationTypes],
    formatError: makeFormatError({ mask: !options.exposeErrors }),
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginLandingPageDisabled(),
      // Apollo's own cache-control plugin works per resolved field, which the
      // graphql-jit executor bypasses; ours reads the same SDL hints per document.
      ApolloServerPluginCacheControlDisabled(),
      cacheControlPlugin(schema),
      ...(options.trustedDocuments ? [trustedDocumentsPlugin(options.trustedDocuments)] : []),
      logInternalErrors((details, message) => app.log.error(details, message)),
      ...(options.cache ? [responseCachePlugin(options.cache)] : []),
    ],
  });
}
