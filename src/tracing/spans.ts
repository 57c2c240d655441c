// The spans every layer writes, and the one switch they check first.
//
// `traces.tracer` is undefined unless traces are on (src/tracing/sdk.ts sets
// it at start-up): then each instrumented place costs one property read and
// runs exactly as it did, and no OpenTelemetry SDK is loaded at all. On,
// a place opens a span only inside a span being recorded (a sampled request,
// or a background pass that started a root of its own): the requests the
// sampler left out pay one context read per place, not a span.
//
// Spans carry names, sizes and outcomes, never values: no variables, no SQL
// parameters, no cache keys, no product ids (docs/operations.md "Traces").
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer, context, trace } from '@opentelemetry/api';

export { SpanKind, type Attributes, type Span, type Tracer };

/** The tracer while traces are on; undefined when they are off (the default). */
export const traces: { tracer: Tracer | undefined } = { tracer: undefined };

/** The span being recorded in the running context, if any (a sampled request's, or a background pass's). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** Marks `span` failed with `error` (its type and message: driver messages name no values here). */
export function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `fn` inside a child span of the recording span, ended when `fn`
 * settles (failed when it throws); without traces or outside a recorded
 * span, just `fn()`.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  const tracer = traces.tracer;
  if (!tracer || !recordingSpan()) return fn(undefined);
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A child span of the recording span that the caller ends (callback-style code); undefined without one. */
export function childSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span | undefined {
  const tracer = traces.tracer;
  if (!tracer || !recordingSpan()) return undefined;
  return tracer.startSpan(name, { kind, attributes });
}

/** Runs `fn` inside a new root span (a background pass: a change heard, since `startTime` when given), sampled like a request. */
export function inRootSpan<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => Promise<T>, startTime?: number): Promise<T> {
  const tracer = traces.tracer;
  if (!tracer) return fn(undefined);
  return tracer.startActiveSpan(name, { root: true, attributes, ...(startTime === undefined ? {} : { startTime }) }, async (span) => {
    try {
      return await fn(span.isRecording() ? span : undefined);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs `fn` with `span` the active span (its children hang under it). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Runs `fn` in `ctx` (a context captured earlier: a request's, carried across a callback). */
export function inContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export { context as traceContext };
