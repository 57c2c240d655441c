// Starts the OpenTelemetry trace SDK when traces are on (src/config.ts reads
// the standard OTEL_* variables into TracesConfig): a tracer provider with the
// configured sampler and resource, spans batched to an OTLP/HTTP (protobuf)
// exporter, W3C Trace Context propagation, and AsyncLocalStorage carrying
// the active span across awaits. The SDK's modules are imported here, at
// start-up, only then: with traces off the process never loads them.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { traces } from './spans.ts';

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** What the OTEL_* variables say, read by src/config.ts (docs/configuration.md "Traces"). */
export interface TracesConfig {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS (and _TRACES_HEADERS): sent with every export (a collector's or vendor's token). */
  headers: Record<string, string>;
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the share of new traces sampled by the ratio samplers. */
  ratio: number;
  /** service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES's, else catalogue-api. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES: the deployment's own attributes (environment, region, pod). */
  resourceAttributes: Record<string, string>;
}

export interface StartOptions {
  /** Where spans go instead of OTLP (tests: the SDK's InMemorySpanExporter), each as it ends. */
  exporter?: SpanExporter;
}

export interface RunningTraces {
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops; traces are off again. */
  shutdown(): Promise<void>;
}

/** The sampler the configuration names. */
async function samplerOf(config: Pick<TracesConfig, 'sampler' | 'ratio'>) {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace-base');
  const root = config.sampler.endsWith('always_on') ? new AlwaysOnSampler()
    : config.sampler.endsWith('always_off') ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(config.ratio);
  return config.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** Starts the SDK and turns on every instrumented place (traces.tracer). */
export async function startTraces(config: TracesConfig, options: StartOptions = {}): Promise<RunningTraces> {
  const [api, { W3CTraceContextPropagator }, { AsyncLocalStorageContextManager }, sdk, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const exporter = options.exporter ?? new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url: config.url, headers: config.headers });
  const processor = options.exporter ? new sdk.SimpleSpanProcessor(exporter) : new sdk.BatchSpanProcessor(exporter);
  const provider = new sdk.BasicTracerProvider({
    sampler: await samplerOf(config),
    resource: defaultResource().merge(resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName })),
    spanProcessors: [processor],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  traces.tracer = provider.getTracer('catalogue-api');
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      traces.tracer = undefined;
      await provider.shutdown();
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
    },
  };
}
