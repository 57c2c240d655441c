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
import type { GraphQLLimits } from '../config.ts';
import type { HttpCaching } from '../http/http-caching.ts';
import type { GraphQLSchema } from 'graphql';
import type { PreparedOperations } from './prepared-operations.ts';
import { type OperationStage, stagesPlugin } from './stages.ts';
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
  /** What every request of an operation needs, worked out once (prepared-operations.ts); the known-operation path answers from it too. */
  operations: PreparedOperations;
  /** The operation stages of every request (stages.ts): Apollo runs them through its adapter plugin. */
  stages: readonly OperationStage[];
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
    // The stages of every request (stages.ts), in their order: the adapters
    // below call the same units the known-operation path runs (fast-path.ts).
    // Hooks of one kind run in this list's order.
    plugins: [
      // Counts the request's errors for its log line and metrics (the metrics stage names the operation).
      operationRecordPlugin<GraphQLContext>(),
      ApolloServerPluginLandingPageDisabled(),
      // Apollo's own cache-control plugin works per resolved field, which the
      // graphql-jit executor bypasses; ours reads the same SDL hints per document.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo adds federated tracing (ftv1) to a subgraph schema (FEDERATION=on):
      // per-field timings for whoever asks, from resolver hooks graphql-jit
      // bypasses. The catalogue has its own metrics (docs/operations.md).
      ApolloServerPluginInlineTraceDisabled(),
      // cacheControl stage (willSendResponse, before httpStatus).
      cacheControlPlugin(operations, options.httpCaching),
      // Apollo's part of trusted documents: the text of a listed id sent alone.
      ...(options.trustedDocuments ? [trustedDocumentsPlugin(options.trustedDocuments)] : []),
      // metrics, trustedDocuments, limits, access (didResolveOperation); execute.
      stagesPlugin(options.stages, operations),
      // Before the cache stage: it marks operations that passed the stages above as known.
      operations.learningPlugin(),
      logInternalErrors((details, message) => app.log.error(details, message)),
      // httpStatus stage.
      httpStatusPlugin(),
      // cache stage (responseForOperation, and willSendResponse after httpStatus).
      responseCachePlugin(options.cache, operations),
      // Parsing and validation spans, only with traces on (src/tracing/).
      ...(traces.tracer ? [tracesPlugin<GraphQLContext>()] : []),
    ],
  });
}
