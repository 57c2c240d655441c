// Apollo Server for the catalogue schema, mounted on Fastify.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { FastifyInstance } from 'fastify';
import type { GraphQLContext } from './context.ts';
import { logInternalErrors, makeFormatError } from './errors.ts';
import { httpStatusPlugin } from './http-status.ts';
import { knownOperationTypes, noSubscriptionsOverHttp } from './known-operation-types.ts';
import { responseCachePlugin } from './response-cache-plugin.ts';
import { cacheControlPlugin } from './cache-control-plugin.ts';
import { trustedDocumentsPlugin } from './trusted-documents.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { operationRecordPlugin } from '../observability/graphql-operations.ts';
import type { AccessControl } from '../auth/access.ts';
import { accessPlugin } from './access-plugin.ts';
import type { GraphQLLimits } from '../config.ts';
import { limitsPlugin } from './limits/limits-plugin.ts';
import type { HttpCaching } from '../http/http-caching.ts';
import type { GraphQLSchema } from 'graphql';
import type { PreparedOperations } from './prepared-operations.ts';
import { declared } from './fast-path.ts';
import { tracesPlugin } from './traces-plugin.ts';
import { traces } from '../tracing/spans.ts';

export interface ApolloOptions {
  exposeErrors: boolean;
  cache: ResponseCache | undefined;
  /** Where persisted query hashes live; undefined: Apollo's in-process LRU. */
  persistedQueries: { cache: KeyValueCache<string> | undefined; ttlSeconds: number };
  /** When set, only these documents (hex sha256 → text) run. */
  trustedDocuments: Map<string, string> | undefined;
  /** API keys and rate limits. */
  access: AccessControl;
  limits: GraphQLLimits;
  introspection: boolean;
  fieldSuggestions: boolean;
  /** Browser and CDN caching of GET answers. */
  httpCaching: HttpCaching;
  /** Serve the schema as a Federation 2 subgraph (docs/federation.md). */
  federation: boolean;
  /** The catalogue schema (src/graphql/federation/subgraph-schema.ts). */
  schema: GraphQLSchema;
  /** Execute with graphql-jit's compiled queries (GRAPHQL_JIT=on), else graphql-js. */
  jit: boolean;
  /** What every request of an operation needs, worked out once (prepared-operations.ts); the fast path answers from it too. */
  operations: PreparedOperations;
}

export function createApollo(app: FastifyInstance, options: ApolloOptions): ApolloServer<GraphQLContext> {
  const { schema, operations } = options;
  return new ApolloServer<GraphQLContext>({
    ...(options.jit ? { gateway: options.operations.jitGateway() } : { schema }),
    // The API has no cookie-based auth, and GET can never run a mutation, so
    // CSRF preflight enforcement would only break plain `curl` GETs.
    csrfPrevention: false,
    // Shutdown belongs to Fastify (src/main.ts): it stops accepting, lets
    // in-flight requests finish, then stops Apollo in an onClose hook. Apollo's
    // own signal handlers (and its drain plugin, which closes every
    // connection) would cut in-flight requests and kill the process by signal.
    stopOnTerminationSignals: false,
    // Apollo's own lines (an unexpected error, a failed store) as JSON log lines like every other.
    logger: app.log,
    persistedQueries: { ttl: options.persistedQueries.ttlSeconds, ...(options.persistedQueries.cache ? { cache: options.persistedQueries.cache } : {}) },
    includeStacktraceInErrorResponses: false,
    formatError: makeFormatError({ mask: !options.exposeErrors, suggestions: options.fieldSuggestions }),
    // graphql-js stops parsing at the first token over the limit (token-limit.ts words the error).
    parseOptions: { maxLexicalTokens: options.limits.maxTokens },
    // One operation per HTTP request: a JSON array body is a 400 (Apollo's default, stated).
    allowBatchedHttpRequests: false,
    // Apollo's own switch would refuse introspection with a message about its
    // constructor options; graphql-js's rule says plainly that it is disabled.
    introspection: true,
    validationRules: [knownOperationTypes, noSubscriptionsOverHttp, ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule])],
    // Each declared with what the fast path does in its place (fast-path.ts).
    plugins: [
      declared('operationRecord', operationRecordPlugin<GraphQLContext>()),
      declared('landingPageDisabled', ApolloServerPluginLandingPageDisabled()),
      // Apollo's own cache-control plugin works per resolved field, which the
      // graphql-jit executor bypasses; ours reads the same SDL hints per document.
      declared('cacheControlDisabled', ApolloServerPluginCacheControlDisabled()),
      // Apollo adds federated tracing (ftv1) to a subgraph schema (FEDERATION=on):
      // per-field timings for whoever asks, from resolver hooks graphql-jit
      // bypasses. The catalogue has its own metrics (docs/operations.md).
      declared('inlineTraceDisabled', ApolloServerPluginInlineTraceDisabled()),
      declared('cacheControl', cacheControlPlugin(operations, options.httpCaching)),
      ...(options.trustedDocuments ? [declared('trustedDocuments', trustedDocumentsPlugin(options.trustedDocuments))] : []),
      // After trusted documents: an operation that may not run at all is told so first.
      declared('limits', limitsPlugin(options.limits, operations)),
      declared('access', accessPlugin(options.access, operations)),
      // Before the response cache: it marks operations that passed the limits and access.
      declared('learning', operations.learningPlugin()),
      declared('internalErrors', logInternalErrors((details, message) => app.log.error(details, message))),
      declared('httpStatus', httpStatusPlugin()),
      ...(options.cache ? [declared('responseCache', responseCachePlugin(options.cache, operations))] : []),
      // Parsing and validation spans, only with traces on (src/tracing/).
      ...(traces.tracer ? [declared('traces', tracesPlugin<GraphQLContext>())] : []),
    ],
  });
}
