// /graphql, POST and GET: the one entry point of GraphQL requests. Every
// request passes the same stages (stages.ts), traced in request.graphqlStages:
// a known query through their runner (fast-path.ts, with or without the
// response cache), anything else through Apollo Server, whose plugins adapt
// the same stage units (apollo.ts); a browser asking for HTML gets the IDE
// (or, with it off, a landing page: ide.ts).
import type { ApolloServer } from '@apollo/server';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl } from '../auth/access.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import { CLIENT_GONE_MESSAGE, clientGone } from '../http/client-gone.ts';
import { addVary, type HttpCaching, notModified, representationETag } from '../http/http-caching.ts';
import { checkQueryText, InvalidText } from '../http/json-input.ts';
import { graphqlCaller } from './access-plugin.ts';
import type { GraphQLContext } from './context.ts';
import { FastPath } from './fast-path.ts';
import type { OperationStage } from './stages.ts';
import { type IdeOptions, registerIde } from './ide.ts';
import { ANONYMOUS_OPERATION, type OperationRecord, recordOperation } from '../observability/graphql-operations.ts';
import { inSpan, type Span, traces } from '../tracing/spans.ts';
import type { PreparedOperations } from './prepared-operations.ts';

/** The parameters of GET /graphql. */
const GRAPHQL_GET_PARAMETERS = ['query', 'operationName', 'variables', 'extensions'] as const;

export interface GraphqlEndpointOptions {
  apollo: ApolloServer<GraphQLContext>;
  operations: PreparedOperations;
  /** Compiled queries (GRAPHQL_JIT=on): the known-operation path runs them; without them every request is Apollo's. */
  jit: boolean;
  cache: ResponseCache | undefined;
  access: AccessControl;
  /** The operation stages of every request (stages.ts). */
  stages: readonly OperationStage[];
  httpCaching: HttpCaching;
  /** A request's context: its loaders, the shared services, the caller. */
  context: (request: FastifyRequest) => GraphQLContext;
  /** Runs `fn` in the request's statement-counting scope. */
  counted: <T>(request: FastifyRequest, fn: () => Promise<T>) => Promise<T>;
  /** What a browser opening /graphql gets: GraphiQL or the landing page. */
  ide: IdeOptions;
}

/** The operation span's name and attributes (graphql.operation.*, the document's hash; never variables), once the operation is known. */
function describeOperation(span: Span, operation: OperationRecord | null): void {
  if (!operation?.resolved) return;
  const name = operation.name ?? ANONYMOUS_OPERATION;
  span.updateName(`${operation.type ?? 'query'} ${name}`);
  span.setAttributes({ 'graphql.operation.name': name, 'graphql.operation.type': operation.type ?? 'query', 'catalogue.graphql.errors': operation.errors });
  if (operation.hash) span.setAttribute('graphql.document.hash', operation.hash);
}

/** Registers /graphql (and the IDE's assets); returns the stages' runner for known operations, when there is one. */
export function registerGraphqlEndpoint(app: FastifyInstance, options: GraphqlEndpointOptions): FastPath | undefined {
  const { operations, access, httpCaching, counted, stages } = options;
  const fastPath = options.jit
    ? new FastPath({ operations, stages, httpCaching, cache: options.cache, context: options.context, counted })
    : undefined;
  /** A context of Apollo's own: the stages it runs are traced from the start. */
  const apolloContext = (request: FastifyRequest) => {
    const context = options.context(request);
    context.stages = request.graphqlStages = [];
    return context;
  };
  // A request the known-operation path handed over (a refusal, a result with errors) runs in the context it began.
  const apollo = fastifyApolloHandler(options.apollo, { context: async (request) => fastPath?.contextOf(request) ?? apolloContext(request) });
  /** The answer to a GraphQL request: the known-operation path's, else Apollo's, inside the request's statement-counting scope. */
  async function untraced(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    request.graphqlStages = [];
    if (fastPath && await fastPath.answer(request, reply)) {
      fastPath.observeStages?.(request.graphqlStages);
      return reply;
    }
    const answered = await counted(request, async () => apollo.call(this, request, reply));
    fastPath?.observeStages?.(request.graphqlStages);
    return answered;
  }
  app.decorateRequest('graphqlStages', undefined);
  /** The same, in the operation's span when traced: both paths, cache hits included, under one span named after the operation. */
  function answer(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (!traces.tracer) return untraced.call(this, request, reply);
    return inSpan('graphql', {}, async (span) => {
      try {
        return await untraced.call(this, request, reply);
      } finally {
        if (span) describeOperation(span, request.graphqlOperation);
      }
    });
  }
  const sendBrowserPage = registerIde(app, options.ide);
  const identifyCaller = graphqlCaller(access);
  // Text that is not Unicode (src/http/json-input.ts) is a GraphQL input error naming the field;
  // a body the client never finished is its doing (src/http/client-gone.ts); other errors keep the answers they had.
  const errorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A GraphQL request that failed before Apollo ran it: its completion line and metrics count the error.
    (request.graphqlOperation ?? recordOperation(request)).errors += 1;
    if (clientGone(request)) {
      request.log.info({ reason: error.message }, CLIENT_GONE_MESSAGE);
      return reply.code(400).send({ errors: [{ message: CLIENT_GONE_MESSAGE, extensions: { code: 'BAD_REQUEST' } }] });
    }
    if (error instanceof InvalidText) {
      return reply.code(400).send({ errors: [{ message: error.message, extensions: { code: 'BAD_USER_INPUT', field: error.field } }] });
    }
    // A body Fastify could not take (415, 413, bad JSON): the GraphQL error shape, with the status it chose.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).header('cache-control', 'no-store').send({ errors: [{ message: error.message, extensions: { code: 'BAD_REQUEST' } }] });
    }
    throw error;
  };
  // Every answer depends on Accept (the media type, and with it the status of
  // a request error), and on the key when reads need one.
  // Callback hooks, not async ones: a cached answer passes them without a promise each.
  const graphqlVaryNames = ['Accept', ...httpCaching.vary];
  const graphqlVary = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    addVary(reply, graphqlVaryNames);
    done();
  };
  // A cacheable GET answer (cache-control-plugin.ts) gets a strong ETag, and a 304 when the client has it.
  const graphqlETag = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (reply.statusCode !== 200 || typeof payload !== 'string' || reply.getHeader('cache-control') === 'no-store') return done(null, payload);
    // A cached answer comes with its tag, computed when it was stored (response-cache-plugin.ts).
    const stored = reply.getHeader('etag');
    const etag = typeof stored === 'string' ? stored : representationETag(String(reply.getHeader('content-type')), payload);
    done(null, notModified(reply, request.headers['if-none-match'], etag) ? '' : payload);
  };
  app.post('/graphql', { onRequest: [graphqlVary, identifyCaller], errorHandler }, answer);
  app.get('/graphql', { constraints: {}, onRequest: [graphqlVary, identifyCaller], onSend: graphqlETag, errorHandler }, async function (request, reply) {
    const query = request.query as Record<string, unknown>;
    // A browser's navigation; a GraphQL GET (a query, or a persisted query's hash) is answered whatever it accepts.
    const wantsHtml = (request.headers.accept ?? '').includes('text/html') && !query.query && !query.extensions;
    if (wantsHtml) return sendBrowserPage(reply);
    checkQueryText(request.url, GRAPHQL_GET_PARAMETERS, { variables: query.variables, extensions: query.extensions });
    return answer.call(this, request, reply);
  });
  return fastPath;
}
