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
import { responseCachePlugin } from './response-cache-plugin.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import { readTypeDefs } from './schema.ts';

export function createApollo(app: FastifyInstance, options: { exposeErrors: boolean; jit: boolean; cache: ResponseCache | undefined }): ApolloServer<GraphQLContext> {
  const schema = makeExecutableSchema({ typeDefs: readTypeDefs(), resolvers });
  return new ApolloServer<GraphQLContext>({
    ...(options.jit ? { gateway: jitGateway(schema) } : { schema }),
    // The API has no cookie-based auth, and GET can never run a mutation, so
    // CSRF preflight enforcement would only break plain `curl` GETs.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    formatError: makeFormatError({ mask: !options.exposeErrors }),
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints in the SDL yet; computing an empty cache policy per field costs CPU on every request.
      ApolloServerPluginCacheControlDisabled(),
      logInternalErrors((details, message) => app.log.error(details, message)),
      ...(options.cache ? [responseCachePlugin(options.cache)] : []),
    ],
  });
}
