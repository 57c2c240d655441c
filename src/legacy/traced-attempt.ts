// The legacy service's requests in traces, when they are on: each attempt a
// client span (method, host, status, which attempt; never the path, which
// holds ids), and every attempt carries the W3C `traceparent` of the trace
// it belongs to, so the legacy service's own traces or logs join it. A
// request outside any recorded span (the sampler left it out) still carries
// its trace's id, marked not sampled.
import { context, propagation } from '@opentelemetry/api';
import { SpanKind, inSpan, recordingSpan, traces } from '../tracing/spans.ts';

/** Runs one attempt (`send`, given the trace headers to add), in a span when traced. */
export function tracedAttempt<R extends { kind: string; status?: number }>(method: string, url: URL, attempt: number, send: (traceHeaders: Record<string, string> | undefined) => Promise<R>): Promise<R> {
  if (!traces.tracer) return send(undefined);
  const carrier: Record<string, string> = {};
  if (!recordingSpan()) {
    propagation.inject(context.active(), carrier);
    return send(carrier);
  }
  return inSpan(method, {
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'http.request.resend_count': attempt - 1,
    'catalogue.legacy': true,
  }, async (span) => {
    propagation.inject(context.active(), carrier);
    const result = await send(carrier);
    if (result.kind === 'response' && result.status !== undefined) span?.setAttribute('http.response.status_code', result.status);
    else span?.setAttribute('error.type', result.kind);
    return result;
  }, SpanKind.CLIENT);
}
