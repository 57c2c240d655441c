// Settings every connection of the API's pools starts its session with, sent
// in the startup message (the libpq `options` parameter): no extra statement,
// no extra round trip, and a connection opened after a failover gets them too.
//
// plan_cache_mode=force_generic_plan: catalogue reads are named prepared
// statements whose keys arrive as one array (`= ANY($1::int[])`, queries.ts).
// Postgres costs a generic plan of such a statement for ten keys and a custom
// plan for the keys it is given, so for the usual batch of one the generic
// plan always looks dearer and Postgres re-plans the statement at every
// execution; preparing bought nothing. The plans are the same index lookups
// whatever the batch size, so one generic plan serves them all. Measured with
// `GET /products/:id/styles` at full scale: Postgres CPU per request 0.41 ms
// re-planning, 0.13 ms with the generic plan.
// Writes are keyed single-row statements, equally served by it.
//
// max_parallel_workers_per_gather=0: a browse page reads 21 rows in index
// order, but its generic plan (a filter or a cursor of unknown selectivity)
// is costed for a third of the table, and Postgres wrapped it in a Gather
// Merge: 9-12 ms of starting workers for 0.5 ms of work (EXPLAIN ANALYZE at
// full scale, docs/browse.md). No read of this API scans enough to gain from
// parallel workers on the few cores it shares with Postgres.
//
// jit=off: generic plans of the search statements are costed far above
// jit_above_cost, so Postgres compiled a couple of hundred functions for
// every execution of a lookup that runs in about a millisecond (EXPLAIN
// ANALYZE's JIT section at full scale). Its keyed reads never run long
// enough for compiled expressions to pay back.
//
// work_mem=16MB: a search's counts read its matches through a bitmap of the
// GIN index's posting lists; a common word's (150,000 rows at full scale)
// outgrew the default 4 MB, the bitmap went lossy, and every row of 14,000
// lossy pages was rechecked against its tsvector: facets of "running" among
// Kicks took 216 ms alone, 104 ms with the bitmap exact (EXPLAIN ANALYZE,
// scripts/explain-browse.ts). An exact bitmap of every page of
// product_browse needs about 8 MB, so 16 MB bounds what one statement's
// bitmaps take.
const SESSION_OPTIONS = '-c plan_cache_mode=force_generic_plan -c max_parallel_workers_per_gather=0 -c jit=off -c work_mem=16MB';

export interface SessionSettings {
  /**
   * lock_timeout: writes lock the product row they change first, and wait
   * for it at most this long (then 55P03, answered 503 + Retry-After).
   * Reads take no row locks; only DDL (a data:load swap) could make them wait.
   */
  lockTimeoutMs?: number;
  /** The operator's PGOPTIONS (config.ts reads it): a URL's `options` would replace it, so it is merged here. */
  pgOptions?: string;
  /**
   * Behind a transaction-mode pooler no settings go in the startup message:
   * PgBouncer refuses the `options` parameter ("unsupported startup
   * parameter"), and a server connection is shared by every client anyway.
   * The timeouts come from the role or database instead (docs/scaling.md);
   * plan_cache_mode does not matter for the unnamed statements sent there.
   */
  transactionPooler?: boolean;
}

/**
 * `url` with the session settings in its `options` parameter. Options already
 * in the URL (or else `settings.pgOptions`, PGOPTIONS) come
 * after ours, so an operator's own `-c plan_cache_mode=…` still wins.
 */
export function withSessionSettings(url: string, settings: SessionSettings = {}): string {
  if (settings.transactionPooler) return url;
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options') ?? settings.pgOptions ?? '';
  const ours = settings.lockTimeoutMs === undefined ? SESSION_OPTIONS : `${SESSION_OPTIONS} -c lock_timeout=${settings.lockTimeoutMs}`;
  parsed.searchParams.set('options', own.trim() === '' ? ours : `${ours} ${own.trim()}`);
  return parsed.toString();
}
