// Live subscriptions in traces, when they are on: each batch of the hub a
// root span (live.batch) from the moment the first change it carries was
// heard (Postgres delivers a NOTIFY once its write committed) until every
// result was handed to its subscribers' transports; each job a child
// (live.job <operation>) with its statements below it. A batch is not part
// of any request's trace: the write's own trace ends at its commit.
import { inRootSpan, inSpan, traces } from '../../tracing/spans.ts';

/** Runs a batch of `jobs` jobs, in a live.batch span beginning when its first change was heard (epoch ms). */
export function liveBatch<T>(heardAt: number | undefined, jobs: number, run: () => Promise<T>): Promise<T> {
  if (!traces.tracer) return run();
  return inRootSpan('live.batch', { 'catalogue.live.jobs': jobs }, run, heardAt);
}

/** Runs one job, in a live.job span naming its operation (and how many subscribers it had). */
export function liveJob<T>(operationName: string | undefined, subscribers: number, run: () => Promise<T>): Promise<T> {
  if (!traces.tracer) return run();
  return inSpan(`live.job ${operationName ?? 'anonymous'}`, { 'graphql.operation.type': 'subscription', 'graphql.operation.name': operationName ?? 'anonymous', 'catalogue.live.subscribers': subscribers }, run);
}

/** When the first change of the next batch was heard: now, unless one already waits (undefined with traces off). */
export function heardAt(earlier: number | undefined): number | undefined {
  return traces.tracer ? earlier ?? Date.now() : undefined;
}
