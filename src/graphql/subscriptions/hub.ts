// The live hub: one per process, between the change feed and every
// subscriber of this process, whatever its transport (graphql-ws.ts, sse.ts).
//
// Multiplexed, not per subscriber. Subscribers whose documents and variables
// are the same apart from the ids they watch share a selection (its key:
// operation.ts); a selection and one product id make a job, and a job is
// executed once per batch, its result shared by every subscriber of that
// product through that selection. Jobs execute on loaders of their own, so
// each knows the products its result showed (a related product's name,
// say), but their reads go out together, so a batch of changes costs one
// statement per kind of read (src/db/reads/coalesced-reads.ts), however many
// subscribers and jobs.
//
// Batches: a heard change marks the jobs that showed the product; the next
// batch starts on the next turn of the event loop, or when the one running
// has finished, so changes arriving together (or during a batch) are read
// together. One batch at a time: each batch reads after the previous one's
// reads have finished, so a job's results come in commit order, and since a
// change is only heard once committed (Postgres delivers NOTIFY after the
// commit is visible), the last result a subscriber gets is the latest state.
// A batch runs at most MAX_JOBS_PER_BATCH jobs; the rest wait for the next one
// (a change heard meanwhile joins its job's waiting run): a burst of
// subscriptions to many ids is read in slices with the event loop free
// between them, so the process goes on answering requests. Jobs that already
// have a state (a change to what subscribers see) go before those reading a
// first state, so a burst does not hold up everyone else's changes.
//
// Each subscriber keeps at most one pending result per product (the latest
// replaces an older one not yet sent) and one notice: memory per subscriber
// is bounded by the ids it watches, however slowly it reads. One whose
// oldest pending result has waited LIVE_SLOW_CONSUMER_MS without its
// transport taking anything is told it is stalled (its connection is closed).
import { type DocumentNode, execute, type ExecutionResult, GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../context.ts';
import type { ProductChangeEvent } from './event.ts';
import { heardAt, liveBatch, liveJob } from './live-traces.ts';

/** What a subscriber is sent: a GraphQL result, its errors already formatted for clients. */
export interface LivePayload {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** A subscriber's operation, checked and ready to run (operation.ts). */
export interface LiveOperation {
  /** Equal for operations that differ only in the ids they watch: they share executions. */
  key: string;
  document: DocumentNode;
  operationName: string | undefined;
  /** The variables as sent (the ids variable's value is replaced by each job's id). */
  variables: Record<string, unknown>;
  /** The variable holding the ids, when they are given by one. */
  idsVariable: string | undefined;
  /** The distinct product ids watched, in the order given. */
  ids: number[];
}

export interface LiveHubOptions {
  schema: GraphQLSchema;
  /** A context for one job's execution: fresh loaders over the primary (a replica may lag behind the change heard). */
  context(): GraphQLContext;
  /** Formats a result's errors as queries' are (masking internal ones). */
  formatError(error: GraphQLError): GraphQLFormattedError;
  /** An internal error in a job (logged with the selection's operation name). */
  logError(error: unknown, operationName: string | undefined): void;
  /** A job whose result had errors is run again after this long (Postgres back). */
  retryMs: number;
  /** A subscriber whose pending results have waited this long without progress is stalled. */
  slowConsumerMs: number;
}

/**
 * Jobs a batch runs at most. All of a batch's executions start in one turn of
 * the event loop and their results arrive in another: an outside run that
 * subscribed 20,000 ids at once (one key at its cap) held the event loop for
 * up to 1.4 s, other clients' requests waiting behind it, and 200,000 for
 * 2.8 s. A slice of 500 keeps each turn to some tens of milliseconds and still
 * reads 500 products per statement.
 */
export const MAX_JOBS_PER_BATCH = 500;

/** Key of a subscriber's notices (not a product: ids are positive). */
const NOTICE = 0;

/** The notice every subscriber gets when the change feed loses Postgres (docs/subscriptions.md). */
export const PAUSED_NOTICE: LivePayload = Object.freeze({
  data: null,
  errors: [{
    message: 'live updates are paused: this server lost its connection to the database and cannot hear changes; each product\'s current state is sent again when it is back',
    extensions: { code: 'LIVE_UPDATES_PAUSED' },
  }],
});

class Selection {
  readonly jobs = new Map<number, Job>();
  readonly operation: LiveOperation;
  constructor(operation: LiveOperation) {
    this.operation = operation;
  }
}

class Job {
  readonly subscribers = new Set<LiveSubscription>();
  /** Products the last result showed (the job's own id always included): a change of any of them runs it again. */
  depends: readonly number[] = [];
  /** The last result, and its JSON (to tell whether a new one differs). */
  last: LivePayload | undefined;
  lastJson: string | undefined;
  /** Whether the last result had errors (it is run again after retryMs). */
  failed = false;
  readonly selection: Selection;
  readonly id: number;
  constructor(selection: Selection, id: number) {
    this.selection = selection;
    this.id = id;
  }
}

/** Why a job runs in a batch. */
interface Run {
  /** Send the result to every subscriber even if it is the same as the last (its own product changed, or everything may have). */
  force: boolean;
  /** Subscribers waiting for their first state. */
  initial: Set<LiveSubscription>;
}

export interface LiveHubStats {
  batches: number;
  /** Statements the jobs' reads sent (counted by the registration's queries). */
  statements: number;
  /** Job executions (one per job per batch it ran in). */
  executions: number;
  /** Results handed to subscribers. */
  deliveries: number;
  /** Subscribers told they were too slow. */
  stalled: number;
}

export class LiveHub {
  readonly stats: LiveHubStats = { batches: 0, statements: 0, executions: 0, deliveries: 0, stalled: 0 };
  private readonly options: LiveHubOptions;
  private readonly selections = new Map<string, Selection>();
  /** Jobs by every product their last result showed. */
  private readonly dependents = new Map<number, Set<Job>>();
  private pendingIds = new Set<number>();
  private pendingEverything = false;
  private pendingInitial = new Map<Job, Set<LiveSubscription>>();
  /** Runs taken from what was pending but left for a later batch (past MAX_JOBS_PER_BATCH), oldest first. */
  private waiting = new Map<Job, Run>();
  private retry = new Set<Job>();
  private retryTimer: NodeJS.Timeout | undefined;
  private scheduled = false;
  /** With traces on: when the first change the next batch carries was heard (live-traces.ts). */
  private heardAt: number | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Subscribers with pending results their transport has not taken. */
  readonly blocked = new Set<LiveSubscription>();
  private readonly sweeper: NodeJS.Timeout;
  private subscriptionCount = 0;

  constructor(options: LiveHubOptions) {
    this.options = options;
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(1_000, options.slowConsumerMs / 4)));
    this.sweeper.unref();
  }

  /** How long pending events may wait without progress (LIVE_SLOW_CONSUMER_MS). */
  get slowConsumerMs(): number {
    return this.options.slowConsumerMs;
  }

  /** Subscriptions open now. */
  get subscriptions(): number {
    return this.subscriptionCount;
  }

  /** Nothing pending, scheduled or running (tests wait for it before counting what a change costs). */
  get idle(): boolean {
    return !this.scheduled && !this.running && !this.hasPending();
  }

  /** Distinct (selection, product) pairs executed per change. */
  get jobCount(): number {
    let n = 0;
    for (const selection of this.selections.values()) n += selection.jobs.size;
    return n;
  }

  /** Starts a subscription: its current state first (for every id), then its changes. */
  subscribe(operation: LiveOperation): LiveSubscription {
    let selection = this.selections.get(operation.key);
    if (!selection) this.selections.set(operation.key, selection = new Selection(operation));
    const subscription = new LiveSubscription(this);
    this.subscriptionCount++;
    for (const id of operation.ids) {
      let job = selection.jobs.get(id);
      if (!job) {
        selection.jobs.set(id, job = new Job(selection, id));
        this.index(job, [id]);
      }
      job.subscribers.add(subscription);
      subscription.jobs.push(job);
      // A job already running for others has the state as of its last read;
      // any change committed since will be heard and run it again, for this
      // subscriber too (it is registered now). Else it is read in the next batch.
      if (job.last !== undefined && !job.failed) subscription.push(id, job.last);
      else this.addInitial(job, subscription);
    }
    this.schedule();
    return subscription;
  }

  /** Committed changes of these products (from the change feed). */
  changed(ids: readonly number[]): void {
    for (const id of ids) if (this.dependents.has(id)) this.pendingIds.add(id);
    if (this.pendingIds.size > 0) {
      this.heardAt = heardAt(this.heardAt);
      this.schedule();
    }
  }

  /** Anything may have changed (the feed reconnected, or a catalogue reload): every job runs and every subscriber gets its state. */
  everything(): void {
    if (this.selections.size === 0) return;
    this.heardAt = heardAt(this.heardAt);
    this.pendingEverything = true;
    this.schedule();
  }

  /** The change feed lost Postgres: every subscriber is told (its state is sent again once the feed is back: everything()). */
  interrupted(): void {
    const subscribers = new Set<LiveSubscription>();
    for (const selection of this.selections.values()) {
      for (const job of selection.jobs.values()) for (const subscriber of job.subscribers) subscribers.add(subscriber);
    }
    for (const subscriber of subscribers) subscriber.push(NOTICE, PAUSED_NOTICE);
  }

  /** Stops batching; subscriptions end when their transports close them. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.retryTimer);
    await this.running;
  }

  /** @internal Called by a subscription that ended. */
  unsubscribe(subscription: LiveSubscription): void {
    this.subscriptionCount--;
    subscription.onEnd?.();
    this.blocked.delete(subscription);
    for (const job of subscription.jobs) {
      job.subscribers.delete(subscription);
      this.pendingInitial.get(job)?.delete(subscription);
      if (job.subscribers.size > 0) continue;
      const selection = job.selection;
      selection.jobs.delete(job.id);
      this.index(job, []);
      this.retry.delete(job);
      this.pendingInitial.delete(job);
      this.waiting.delete(job);
      if (selection.jobs.size === 0) this.selections.delete(selection.operation.key);
    }
    subscription.jobs.length = 0;
  }

  private addInitial(job: Job, subscription: LiveSubscription): void {
    let waiting = this.pendingInitial.get(job);
    if (!waiting) this.pendingInitial.set(job, waiting = new Set());
    waiting.add(subscription);
  }

  /** Sets the products a job depends on. */
  private index(job: Job, depends: readonly number[]): void {
    for (const id of job.depends) {
      const jobs = this.dependents.get(id);
      jobs?.delete(job);
      if (jobs?.size === 0) this.dependents.delete(id);
    }
    job.depends = depends;
    for (const id of depends) {
      let jobs = this.dependents.get(id);
      if (!jobs) this.dependents.set(id, jobs = new Set());
      jobs.add(job);
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.closed) return;
    this.scheduled = true;
    // After the poll phase: notifications (and subscriptions) read from the same sockets land in one batch.
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.batch().finally(() => {
        this.running = undefined;
        if (this.hasPending()) this.schedule();
      });
    });
  }

  private hasPending(): boolean {
    return this.pendingIds.size > 0 || this.pendingEverything || this.pendingInitial.size > 0 || this.waiting.size > 0;
  }

  /** What the next batch runs: what waits from earlier batches first, then what is pending, at most MAX_JOBS_PER_BATCH jobs. */
  private takeRuns(): Map<Job, Run> {
    const runs = this.waiting;
    const run = (job: Job): Run => {
      let entry = runs.get(job);
      if (!entry) runs.set(job, entry = { force: false, initial: new Set() });
      return entry;
    };
    if (this.pendingEverything) {
      for (const selection of this.selections.values()) for (const job of selection.jobs.values()) run(job).force = true;
    }
    for (const id of this.pendingIds) {
      for (const job of this.dependents.get(id) ?? []) {
        const entry = run(job);
        if (job.id === id) entry.force = true;
      }
    }
    for (const [job, subscribers] of this.pendingInitial) {
      const entry = run(job);
      for (const subscriber of subscribers) entry.initial.add(subscriber);
    }
    this.pendingEverything = false;
    this.pendingIds = new Set();
    this.pendingInitial = new Map();
    this.waiting = new Map();
    if (runs.size <= MAX_JOBS_PER_BATCH) return runs;
    const taken = new Map<Job, Run>();
    for (const changed of [true, false]) {
      for (const [job, entry] of runs) {
        if ((job.last !== undefined) === changed) (taken.size < MAX_JOBS_PER_BATCH ? taken : this.waiting).set(job, entry);
      }
    }
    return taken;
  }

  private async batch(): Promise<void> {
    const runs = this.takeRuns();
    const heard = this.heardAt;
    this.heardAt = undefined;
    if (runs.size === 0) return;
    this.stats.batches++;
    // Started in one turn of the event loop: their reads share statements.
    await liveBatch(heard, runs.size, () => Promise.all([...runs].map(([job, run]) =>
      liveJob(job.selection.operation.operationName, job.subscribers.size, () => this.runJob(job, run)))));
  }

  private async runJob(job: Job, run: Run): Promise<void> {
    const { operation } = job.selection;
    const context = this.options.context();
    let payload: LivePayload;
    this.stats.executions++;
    try {
      const event: ProductChangeEvent = { id: job.id };
      const variables = operation.idsVariable ? { ...operation.variables, [operation.idsVariable]: [String(job.id)] } : operation.variables;
      const result: ExecutionResult = await execute({
        schema: this.options.schema, document: operation.document, operationName: operation.operationName,
        rootValue: event, contextValue: context, variableValues: variables,
      });
      payload = this.format(result, operation.operationName);
    } catch (error) {
      this.options.logError(error, operation.operationName);
      payload = { data: null, errors: [this.options.formatError(error instanceof GraphQLError ? error : new GraphQLError('internal error', { originalError: error as Error }))] };
    }
    // Unsubscribed by everyone while it ran.
    if (job.subscribers.size === 0) return;
    const json = JSON.stringify(payload);
    const changed = json !== job.lastJson;
    job.last = payload;
    job.lastJson = json;
    job.failed = payload.errors !== undefined;
    this.index(job, [job.id, ...[...context.loaders.touchedProducts].filter((id) => id !== job.id)]);
    const recipients = run.force || changed ? job.subscribers : run.initial;
    for (const subscriber of recipients) {
      if (!job.subscribers.has(subscriber)) continue;
      subscriber.push(job.id, payload);
    }
    if (job.failed) this.retryLater(job);
  }

  private format(result: ExecutionResult, operationName: string | undefined): LivePayload {
    if (!result.errors?.length) return { data: result.data ?? null };
    for (const error of result.errors) {
      const formatted = this.options.formatError(error);
      if (formatted.extensions?.code === 'INTERNAL_SERVER_ERROR') this.options.logError(error.originalError ?? error, operationName);
    }
    return { data: result.data ?? null, errors: result.errors.map((error) => this.options.formatError(error)) };
  }

  private retryLater(job: Job): void {
    this.retry.add(job);
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      for (const failed of this.retry) if (failed.subscribers.size > 0) this.pendingIds.add(failed.id);
      this.retry.clear();
      this.schedule();
    }, this.options.retryMs);
    this.retryTimer.unref();
  }

  /** Tells subscribers whose transport has taken nothing for too long. */
  private sweep(): void {
    const now = performance.now();
    for (const subscription of this.blocked) {
      if (subscription.blockedSince !== undefined && now - subscription.blockedSince >= this.options.slowConsumerMs) {
        this.blocked.delete(subscription);
        this.stats.stalled++;
        subscription.stall();
      }
    }
  }

  /** @internal */
  delivered(): void {
    this.stats.deliveries++;
  }
}

/**
 * One subscriber's results, as an async iterator its transport reads: the
 * next pending result when it asks, in the order products first became
 * pending, each product's latest only.
 */
export class LiveSubscription implements AsyncGenerator<LivePayload, undefined> {
  /** @internal The jobs it watches. */
  readonly jobs: Job[] = [];
  /** @internal When pending results started waiting without progress; undefined when none waits. */
  blockedSince: number | undefined;
  /** Called once if it stalls (see LiveHub); the transport closes its connection. */
  onStalled: (() => void) | undefined;
  /** Called once when it leaves the hub (completed, finished, or its connection closed): gives back its place under the caps. */
  onEnd: (() => void) | undefined;
  private readonly hub: LiveHub;
  private readonly pending = new Map<number, LivePayload>();
  private waiter: ((result: IteratorResult<LivePayload>) => void) | undefined;
  private done = false;
  /** Finished (finish()): no more events; the last result is pending or taken, then it is done. */
  private ending = false;

  constructor(hub: LiveHub) {
    this.hub = hub;
  }

  /** Results waiting to be taken (at most one per product, and one notice). */
  get backlog(): number {
    return this.pending.size;
  }

  /** @internal */
  push(key: number, payload: LivePayload): void {
    if (this.done || this.ending) return;
    this.hub.delivered();
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve({ value: payload, done: false });
      return;
    }
    this.pending.set(key, payload);
    if (this.blockedSince === undefined) {
      this.blockedSince = performance.now();
      this.hub.blocked.add(this);
    }
  }

  /**
   * Ends it with a last result (why it ends, e.g. its key was revoked): no
   * event after this one; the transport sends it, then completes.
   */
  finish(last: LivePayload): void {
    if (this.done || this.ending) return;
    this.ending = true;
    this.pending.clear();
    this.hub.unsubscribe(this);
    this.blockedSince = undefined;
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve({ value: last, done: false });
    } else {
      this.pending.set(NOTICE, last);
    }
  }

  /** @internal */
  stall(): void {
    this.onStalled?.();
  }

  next(): Promise<IteratorResult<LivePayload>> {
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    const first = this.pending.entries().next();
    if (!first.done) {
      const [key, payload] = first.value;
      this.pending.delete(key);
      if (this.pending.size === 0) {
        this.blockedSince = undefined;
        this.hub.blocked.delete(this);
      } else {
        // Progress: the rest wait from now.
        this.blockedSince = performance.now();
      }
      return Promise.resolve({ value: payload, done: false });
    }
    if (this.ending) return this.return();
    return new Promise((resolve) => { this.waiter = resolve; });
  }

  return(): Promise<IteratorResult<LivePayload>> {
    if (!this.done) {
      this.done = true;
      this.pending.clear();
      if (!this.ending) this.hub.unsubscribe(this);
      this.waiter?.({ value: undefined, done: true });
      this.waiter = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<LivePayload>> {
    void this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}
