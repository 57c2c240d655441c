// Every HTTP request's server span, registered only when traces are on
// (src/tracing/): it continues the caller's W3C `traceparent` (or starts a
// trace the sampler keeps or not), is named by the route template (never the
// URL: it holds ids), and ends with the status once the response is sent.
// The response carries `traceresponse` (W3C Trace Context Level 2:
// 00-<trace id>-<this span's id>-<flags>) and the completion log line the
// trace id, so a log line or a response leads to its trace.
//
// Fastify runs hooks and the handler as separate callbacks, and a body is
// read in the socket's async context, not the request's: the span is made
// active in the first preHandler hook, whose `done` runs the route's own
// hooks and the handler, so everything they await (GraphQL, REST, the cache,
// loaders, SQL, Redis) is its descendant.
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Tracer } from '../tracing/spans.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** With traces on: the request's span, and the context its handler runs in. */
    trace: { span: Span; context: Context; traceId: string } | null;
  }
}

/** The attributes a span of a finished request gets: its route template, status, and GraphQL operation. */
function finish(request: FastifyRequest, reply: FastifyReply, span: Span): void {
  const route = request.routeOptions.url;
  span.setAttribute('http.response.status_code', reply.statusCode);
  if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  const operation = request.graphqlOperation;
  if (operation?.resolved) span.setAttribute('graphql.operation.name', operation.name ?? 'anonymous');
  span.updateName(route ? `${request.method} ${route}` : request.method);
  span.end();
}

/**
 * Starts each request's span in onRequest and runs its handler inside it. A
 * recorded span ends when the response is sent (with its status) or cut
 * short by the client; one the sampler left out needs no end, so most
 * requests pay one hook, a span context and a header, not a listener: Fastify's
 * onResponse and onRequestAbort hooks would add work to every request.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  app.decorateRequest('trace', null);
  app.addHook('onRequest', (request, reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url;
    const span = tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER }, parent);
    const { traceId, spanId, traceFlags } = span.spanContext();
    request.trace = { span, context: trace.setSpan(parent, span), traceId };
    reply.header('traceresponse', `00-${traceId}-${spanId}-0${traceFlags & 1}`);
    if (span.isRecording()) {
      span.setAttributes({
        'http.request.method': request.method,
        ...(route ? { 'http.route': route } : {}),
        'url.scheme': request.protocol,
        'catalogue.request_id': request.id,
      });
      reply.raw.once('finish', () => finish(request, reply, span));
      reply.raw.once('close', () => {
        if (reply.raw.writableFinished) return;
        // A client gone before its answer: the span ends anyway.
        span.setAttribute('catalogue.aborted', true);
        span.end();
      });
    }
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.trace) context.with(request.trace.context, done);
    else done();
  });
}
