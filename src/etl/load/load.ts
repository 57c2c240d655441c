// Loads the six legacy files into the catalogue without ever leaving it half
// replaced: rows go into fresh tables in a staging schema, which get the same
// keys, indexes and foreign keys as the live tables (read from the live
// definitions, so they cannot drift from the migrations), are analysed, and
// then replace the live tables in one short transaction. Any failure before
// that transaction leaves the previous catalogue exactly as it was. The
// transaction announces the swap (NOTIFY catalogue_changes): serving
// instances drop every cached answer, and purge CDN copies, when it commits.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../db/server/migrate.ts';
import { CATALOGUE_WRITES_LOCK, isWriteConflict } from '../../db/writes/transaction.ts';
import { NOTIFY_REPLACED } from '../../cache/change-feed.ts';
import { Progress, type ProgressOptions } from '../progress.ts';
import { IdSet } from './id-set.ts';
import { CopyWriter } from './copy-writer.ts';
import { type CpuSeconds, CpuMeter } from './cpu-meter.ts';
import { BUILD_SETTINGS, CATALOG_TABLES, type Definitions, KEYED_BEFORE_ROWS, READ_MODEL_TABLES, STAGED_TABLES, liveDefinitions } from './definitions.ts';
import { type FileStats, LoadError, type RejectSink, STAGING_SCHEMA, loadFile } from './file-loader.ts';
import { ParsePool } from './parse-pool.ts';
import { type BusySeconds, type Task, runGraph } from './task-graph.ts';
import { readHeader } from './reader.ts';
import { searchBuilds } from '../../search/read-model.ts';
import { TABLES, TABLE_BY_FILE, type LoadedIds, type Table } from './tables.ts';

export { LoadError } from './file-loader.ts';

/** Slices of the product ids the style documents are built in. */
const DOCUMENT_SLICES = 8;
/** Products per call when building browse rows with the triggers' function: big enough to amortise, small enough to spread over connections. */
const BROWSE_CHUNK = 20_000;
/** Connections the builds after the files run on: one per core of the database server (the bench's floor builds two at a time too). */
const BUILD_CONNECTIONS = 2;
// Files that only depend on already-loaded parents run side by side.
const PHASES = [['product'], ['styles', 'features', 'related'], ['skus', 'photos']] as const;
/** COPY connections per file: Postgres parses and writes one file's rows on all of them at once. */
const COPY_STREAMS = 2;
const LOAD_LOCK = 72707370;
/** Storage parameters of the staged tables until the swap. */
const NO_AUTOVACUUM = 'autovacuum_enabled = false, toast.autovacuum_enabled = false';
/** Times the swap is tried when a concurrent write deadlocks with it. */
const SWAP_ATTEMPTS = 5;

/** How long the load waits for the writes under way when it starts (each is bounded by the API's own timeouts). */
const WRITES_DRAIN_TIMEOUT = '60s';

/**
 * Makes every API write refuse itself (CatalogueReloading, 503) until this
 * session lets go: once the lock is granted, no write is in flight and none
 * can start. A write committed during the load would be lost at the swap,
 * which replaces every catalogue table with the files'.
 */
async function refuseWrites(control: pg.PoolClient): Promise<void> {
  await control.query('BEGIN');
  try {
    await control.query(`SET LOCAL lock_timeout = '${WRITES_DRAIN_TIMEOUT}'`);
    // A session lock: held past this transaction, to the swap's commit (or the session's end).
    await control.query('SELECT pg_advisory_lock($1)', [CATALOGUE_WRITES_LOCK]);
    await control.query('COMMIT');
  } catch (error) {
    await control.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

export interface LoadOptions {
  databaseUrl: string;
  dir: string;
  replace: boolean;
  log?: (message: string) => void;
  /** Show progress: bars on a terminal, lines every few seconds otherwise (on stderr unless the options say). */
  progress?: boolean | ProgressOptions;
  /** How the files are cut up and spread (tests use small chunks to cross many boundaries). */
  chunkBytes?: number;
  parseThreads?: number;
  copyStreams?: number;
  /** Test hook: called between loading the files and swapping them in. */
  beforeSwap?: (client: pg.PoolClient) => Promise<void>;
}

export interface LoadSummary {
  runId: number;
  files: FileStats[];
  counts: Record<Table, number>;
  /**
   * files; keys: the catalogue's keys and foreign keys; build: the graph of
   * every other build (busy: its tasks' seconds by kind, summed over the
   * connections); finish: the read model's foreign keys and triggers.
   */
  seconds: { files: number; keys: number; build: number; busy: BusySeconds; finish: number; swap: number; total: number };
  /** The graph's database CPU seconds by kind of task (where the server is on this machine). */
  buildCpu: BusySeconds;
  /** Peak resident memory of this (loader) process, in MB. */
  peakMemoryMb: number;
  /** CPU seconds by phase (cpu-meter.ts): where the work is, whatever else shares the host. */
  cpu: Record<'files' | 'keys' | 'build' | 'finish' | 'swap' | 'total', CpuSeconds>;
}

async function checkFiles(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LoadError(code === 'ENOENT' ? `directory ${dir} does not exist` : code === 'ENOTDIR' ? `${dir} is not a directory` : `cannot read directory ${dir} (${code})`);
  }
  const missing = TABLES.filter((t) => !entries.includes(t.fileName)).map((t) => t.fileName);
  if (missing.length > 0) throw new LoadError(`missing file${missing.length > 1 ? 's' : ''} in ${dir}: ${missing.join(', ')}`);
  for (const spec of TABLES) {
    const file = path.join(dir, spec.fileName);
    let header: string | undefined;
    try {
      header = await readHeader(file);
    } catch (error) {
      throw new LoadError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (header === undefined) throw new LoadError(`${spec.fileName} is empty (expected the header "${spec.header}")`);
    if (header !== spec.header) throw new LoadError(`${spec.fileName}: wrong header "${header.slice(0, 200)}"; expected "${spec.header}"`);
  }
}

/**
 * The style documents (and each one's default style) of the products with
 * from < id <= to, from the staging tables: refresh_product_style_documents's
 * rows, byte for byte (test/etl/load.test.ts compares them), built set-based.
 *
 * Why it is written this way (each measured on a 50,000-product slice of the
 * full-scale catalogue, about 2 s in all):
 * - the slice's style-id range read from styles_product_id_idx: plain
 *   min(id) and max(id) let the planner walk styles' primary key from either
 *   end, filtering on product_id, through every style outside the slice
 *   (~2 million rows, twice). `id + 0` keeps it off the key;
 * - each style object built once: without the
 *   OFFSET 0 fence the planner evaluates it past the sort, once in each
 *   aggregate (json_agg and the default's); and the default style picked
 *   with a FILTER under the aggregates' common ORDER BY id, rather than its
 *   own ORDER BY NOT is_default, id (a sort per product);
 * - not kept: the skus' objects written as text and cast to json once per
 *   style (8% of the statement): a second spelling of the documents' shape, for 1%
 *   of a full load; the same for photos, or for everything, gained nothing
 *   more (the cast re-parses the photos' long URLs).
 */
function documentsSql(from: number, to: number): string {
  const s = STAGING_SCHEMA;
  const inSlice = 'style_id BETWEEN (SELECT lo FROM slice) AND (SELECT hi FROM slice)';
  return `SET work_mem = '64MB';
    INSERT INTO ${s}.product_style_documents (product_id, styles, default_style)
    WITH slice AS MATERIALIZED (SELECT min(id + 0) AS lo, max(id + 0) AS hi FROM ${s}.styles WHERE product_id > ${from} AND product_id <= ${to})
    SELECT d.product_id, json_agg(d.style ORDER BY d.id),
      coalesce((array_agg(d.style ORDER BY d.id) FILTER (WHERE d.is_default))[1], (array_agg(d.style ORDER BY d.id))[1])
    FROM (SELECT st.product_id, st.id, st.is_default, json_build_object(
        'id', st.id, 'productId', st.product_id, 'name', st.name,
        'salePrice', st.sale_price::text, 'originalPrice', st.original_price::text, 'isDefault', st.is_default,
        'photos', coalesce(ph.photos, '[]'::json), 'skus', coalesce(k.skus, '[]'::json)
      ) AS style
    FROM ${s}.styles st
    LEFT JOIN (SELECT style_id, json_agg(json_build_object('url', url, 'thumbnailUrl', thumbnail_url) ORDER BY id) AS photos
               FROM ${s}.photos WHERE ${inSlice} GROUP BY style_id) ph ON ph.style_id = st.id
    LEFT JOIN (SELECT style_id, json_agg(json_build_object('id', id, 'size', size, 'quantity', quantity) ORDER BY id) AS skus
               FROM ${s}.skus WHERE ${inSlice} GROUP BY style_id) k ON k.style_id = st.id
    WHERE st.product_id > ${from} AND st.product_id <= ${to}
    OFFSET 0) d
    GROUP BY d.product_id`;
}

/**
 * The detail documents (features, related ids) of the products with from < id
 * <= to, from the staging tables: refresh_product_detail_documents's rows,
 * aggregated by one scan of each table's slice instead of a lookup per product.
 */
function detailDocumentsSql(from: number, to: number): string {
  const s = STAGING_SCHEMA;
  return `SET work_mem = '64MB';
    INSERT INTO ${s}.product_detail_documents (product_id, features, related_ids)
    SELECT product_id, coalesce(f.features, '[]'::json), coalesce(r.related_ids, '{}')
    FROM (SELECT product_id, json_agg(json_build_object('id', id, 'productId', product_id, 'feature', feature, 'value', value) ORDER BY id) AS features
          FROM ${s}.features WHERE product_id > ${from} AND product_id <= ${to} GROUP BY product_id) f
    FULL JOIN (SELECT current_product_id AS product_id, array_agg(related_product_id ORDER BY id) AS related_ids
               FROM ${s}.related WHERE current_product_id > ${from} AND current_product_id <= ${to} GROUP BY current_product_id) r USING (product_id)`;
}

/**
 * The builds after the files and the catalogue's keys, as a graph
 * (task-graph.ts). Builds on one table wait for each other where their
 * locks would collide (CREATE INDEX against VALIDATE and ANALYZE); the read
 * models wait for the indexes their slices scan and for ANALYZE (their plans
 * need the statistics); the facet cells and search lexemes wait for the
 * browse rows; each read-model key and index waits for its table's rows.
 * Listed in the order they should start when several are ready: the read
 * models, the longest work, as early as their inputs allow.
 */
function buildTasks(definitions: Definitions, maxProductId: number, ddl: (sql: string) => () => Promise<number | void>, build: (sql: string) => () => Promise<number | void>, inSearchOrder: () => Promise<number[]>): Task[] {
  const s = STAGING_SCHEMA;
  const isCatalogue = (table: string) => (CATALOG_TABLES as readonly string[]).includes(table);
  const tasks: Task[] = [];
  const onTable = (table: string, kind: string) => tasks.filter((t) => t.kind === kind && t.name.startsWith(`${table}:`)).map((t) => t.name);
  definitions.indexes.filter((b) => isCatalogue(b.table)).forEach((b, i) => tasks.push({ name: `${b.table}:index ${i}`, kind: 'indexes', run: build(b.sql) }));
  definitions.foreignKeys.filter((fk) => isCatalogue(fk.table)).forEach((fk) => tasks.push({
    name: `${fk.table}:validate ${fk.name}`, kind: 'foreign keys', after: onTable(fk.table, 'indexes'),
    run: ddl(`ALTER TABLE ${s}.${fk.table} VALIDATE CONSTRAINT ${fk.name}`),
  }));
  for (const table of CATALOG_TABLES) {
    tasks.push({ name: `${table}:analyze`, kind: 'analyze', after: [...onTable(table, 'indexes'), ...onTable(table, 'foreign keys')], run: ddl(`ANALYZE ${s}.${table}`) });
  }
  const analyzed = (...tables: string[]) => tables.map((t) => `${t}:analyze`);
  const readModel: Task[] = [];
  // The documents and browse rows are counted in products (their tasks' items).
  const slice = Math.ceil(maxProductId / DOCUMENT_SLICES) || 1;
  for (let from = 0; from < maxProductId; from += slice) {
    const items = Math.min(slice, maxProductId - from);
    readModel.push({ name: `product_style_documents:rows ${from}`, kind: 'style documents', items, after: analyzed('styles', 'photos', 'skus'), run: ddl(documentsSql(from, from + slice)) });
    readModel.push({ name: `product_detail_documents:rows ${from}`, kind: 'detail documents', items, after: analyzed('features', 'related'), run: ddl(detailDocumentsSql(from, from + slice)) });
  }
  // refresh_product_browse names its tables without a schema (SET LOCAL
  // lasts for the one implicit transaction); it upserts on product_browse's
  // key, built with the catalogue's. Memoize only hashes each product's
  // unique texts for nothing. No product locks: nothing else writes the
  // staging tables (prisma/functions/refresh_product_browse.sql).
  // Each call builds the next stretch of the products in search order
  // (product_search_orders) and writes its rows in that order, so a run of
  // search_order lies in a narrow stretch of the table and a run's GIN scan
  // decodes only that stretch of its words' postings, not postings spread
  // over the whole table (docs/browse.md, "How a page is read").
  for (let from = 0; from < maxProductId; from += BROWSE_CHUNK) {
    readModel.push({
      name: `product_browse:rows ${from}`, kind: 'browse rows', items: Math.min(BROWSE_CHUNK, maxProductId - from),
      after: analyzed('products', 'features', 'styles', 'skus', 'related', 'search_buckets'),
      run: async () => {
        const ids = (await inSearchOrder()).slice(from, from + BROWSE_CHUNK);
        if (ids.length === 0) return undefined;
        return ddl(`SET LOCAL search_path = ${s}; SET LOCAL enable_memoize = off; SELECT public.refresh_product_browse('{${ids.join(',')}}'::int[], lock_products => false)`)();
      },
    });
  }
  // Interleaved, so both kinds are under way from the start.
  const documents = readModel.filter((t) => t.kind !== 'browse rows');
  const browse = readModel.filter((t) => t.kind === 'browse rows');
  const every = Math.max(1, Math.round(browse.length / Math.max(documents.length, 1)));
  const interleaved: Task[] = [];
  browse.forEach((t, i) => { if (i % every === 0 && documents.length > 0) interleaved.push(documents.shift()!); interleaved.push(t); });
  interleaved.push(...documents);
  tasks.unshift(...interleaved);
  // The search index's builds (src/search/read-model.ts). The runs of search_order first, keyed and analyzed: each browse row looks up its run.
  const search = searchBuilds(s);
  tasks.unshift({ name: search.runs.name, kind: search.runs.kind, after: analyzed('products', 'related'), run: ddl(search.runs.sql) });
  const named = (prefix: string) => tasks.filter((t) => t.name.startsWith(prefix)).map((t) => t.name);
  tasks.push({ name: 'browse aggregates', kind: 'browse aggregates', after: named('product_browse:rows'), run: ddl(`SET LOCAL search_path = ${s}; SELECT public.rebuild_browse_aggregates()`) });
  // Beside the aggregates: the distinct names' word pairs.
  tasks.push({ name: search.namePairs.name, kind: search.namePairs.kind, after: named('product_browse:rows'), run: ddl(search.namePairs.sql) });
  // Beside the aggregates, not after them: it counts the words itself (one pass over the documents).
  tasks.push({ name: search.wordCounts.name, kind: search.wordCounts.kind, after: named('product_browse:rows'), run: ddl(search.wordCounts.sql) });
  // The pairs' counts read the documents through their GIN index (prisma/functions/rebuild_search_pair_facets.sql),
  // and the pairs from the dictionary the aggregates build.
  const readModelIndexes = definitions.indexes.filter((b) => !isCatalogue(b.table));
  const documentIndexes = readModelIndexes.flatMap((b, i) => (b.table === 'product_browse' && /USING gin \(.*\bdocument\b/.test(b.sql) ? [`product_browse:read model index ${i}`] : []));
  tasks.push({ name: search.pairCounts.name, kind: search.pairCounts.kind, after: [search.wordCounts.name, 'browse aggregates', ...documentIndexes], run: ddl(search.pairCounts.sql) });
  // A read-model table is filled by its own row tasks, or (the cells and lexemes, which have none) by the aggregates.
  const filled = (table: string) => {
    const rows = named(`${table}:rows`);
    return rows.length > 0 ? rows : ['browse aggregates'];
  };
  for (const b of definitions.keys.filter((k) => !isCatalogue(k.table) && !KEYED_BEFORE_ROWS.includes(k.table))) {
    tasks.push({ name: `${b.table}:key ${b.sql}`, kind: 'read model indexes', after: filled(b.table), run: build(b.sql) });
  }
  readModelIndexes.forEach((b, i) => {
    tasks.push({ name: `${b.table}:read model index ${i}`, kind: 'read model indexes', after: [...filled(b.table), ...named(`${b.table}:key`)], run: build(b.sql) });
  });
  for (const table of READ_MODEL_TABLES) {
    const builds = tasks.filter((t) => t.kind === 'read model indexes' && t.name.startsWith(`${table}:`)).map((t) => t.name);
    tasks.push({ name: `${table}:analyze`, kind: 'analyze', after: [...filled(table), ...builds], run: ddl(`ANALYZE ${s}.${table}`) });
  }
  return tasks;
}

/** Progress of a graph's tasks: one progress task per kind, in products where the tasks count them, else in builds. */
function graphProgress(progress: Progress | undefined, tasks: Task[]): (task: Task) => void {
  if (!progress) return () => {};
  const kinds = new Map<string, { total: number; done: number; unit: string; task?: ReturnType<Progress['task']> }>();
  for (const task of tasks) {
    const kind = kinds.get(task.kind) ?? { total: 0, done: 0, unit: task.items === undefined ? 'builds' : 'products' };
    kind.total += task.items ?? 1;
    kinds.set(task.kind, kind);
  }
  for (const [name, kind] of kinds) kind.task = progress.task(name, kind.total, kind.unit);
  return (task) => {
    const kind = kinds.get(task.kind)!;
    kind.done += task.items ?? 1;
    kind.task!.update(kind.done);
    if (kind.done >= kind.total) kind.task!.finish();
  };
}

/**
 * Settings of every loader connection: the documents and search vectors it
 * writes are compressed with lz4 where the server was built with it (a
 * column without its own compression takes the session's default when a
 * value is written; readers decompress either): a slice of 125,000 style
 * documents costs Postgres about a quarter less CPU than with pglz, for the
 * same size on disk. Later writes (the triggers') use the server's default.
 */
async function sessionSettings(client: pg.PoolClient): Promise<string> {
  try {
    await client.query(`SET default_toast_compression = lz4`);
    return 'SET default_toast_compression = lz4';
  } catch {
    return '';
  }
}

async function runPool<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  let failed = false;
  async function worker(): Promise<void> {
    while (!failed && next < tasks.length) {
      const index = next++;
      try {
        results[index] = await (tasks[index] as () => Promise<T>)();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  }
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

class RejectsWriter implements RejectSink {
  private readonly copy: CopyWriter;
  private readonly runId: number;
  // Bytes, not strings: a rejected line's text is a slice of a 256 KB read
  // chunk, and holding the slice would keep the whole chunk alive until a flush.
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  count = 0;
  constructor(client: pg.PoolClient, runId: number) {
    this.runId = runId;
    this.copy = new CopyWriter(client, 'COPY load_rejects (run_id, file, line, reason, raw) FROM STDIN');
  }
  async add(file: string, line: number, reason: string, raw: string): Promise<void> {
    const escape = (s: string) => s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
    const row = Buffer.from(`${this.runId}\t${file}\t${line}\t${escape(reason)}\t${escape(raw.replaceAll('\0', ''))}\n`);
    this.pending.push(row);
    this.pendingBytes += row.length;
    this.count++;
    if (this.pendingBytes > 64 * 1024) await this.flush();
  }
  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const data = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    await this.copy.write(data);
  }
  async close(): Promise<void> {
    await this.flush();
    await this.copy.end();
  }
}

/** The loader's connections: a pool for the copies and builds, and the control session that holds the locks. */
interface LoadSession {
  pool: pg.Pool;
  control: pg.PoolClient;
  cpu: CpuMeter;
}

/** Phases' ends: wall time and CPU, read when each ends. */
type PhaseName = 'start' | 'files' | 'keys' | 'build' | 'finish' | 'swap';
type PhaseMarks = Record<PhaseName, { at: number; cpu: CpuSeconds }>;

/**
 * The connections, with the load lock taken: only one load per database (the
 * staging schema is shared, so a second load must stop before touching anything).
 */
async function openSession(options: LoadOptions): Promise<LoadSession> {
  // Idle connections stay open until the end: their backends' CPU is read then.
  const cpu = new CpuMeter(options.databaseUrl);
  let settings = '';
  // Run on a new client before it is handed out (pg-pool's hook: awaited, one query at a time).
  const onConnect = async (client: pg.ClientBase): Promise<void> => {
    if (settings) await client.query(settings);
    await cpu.watch(client).catch(() => {});
  };
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 3 * (options.copyStreams ?? COPY_STREAMS) + 2, idleTimeoutMillis: 0, onConnect });
  pool.on('error', () => {}); // idle clients dropped by the server; queries report their own errors
  const control = await pool.connect();
  settings = await sessionSettings(control);
  const { rows: [lock] } = await control.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LOAD_LOCK]);
  if (!lock?.ok) {
    control.release();
    await pool.end();
    throw new LoadError('another data:load is running against this database');
  }
  return { pool, control, cpu };
}

async function closeSession({ pool, control, cpu }: LoadSession): Promise<void> {
  cpu.stop();
  await control.query('SELECT pg_advisory_unlock($1)', [CATALOGUE_WRITES_LOCK]).catch(() => {});
  await control.query('SELECT pg_advisory_unlock($1)', [LOAD_LOCK]).catch(() => {});
  control.release();
  await pool.end();
}

/**
 * Checks the catalogue may be loaded, refuses writes from here on, records
 * the run and makes the empty staged tables; the run's id and the live
 * tables' definitions (keys, indexes, foreign keys, triggers) for the staged ones.
 */
async function beginRun(control: pg.PoolClient, dir: string, replace: boolean, log: (message: string) => void): Promise<{ runId: number; definitions: Definitions }> {
  // A run still 'running' while this one holds the lock was killed mid-load
  // (its staging schema is dropped below; the catalogue it meant to replace is intact).
  await control.query(`UPDATE load_runs SET status = 'failed', finished_at = now(), summary = '{"error": "interrupted: the loader stopped before the swap"}' WHERE status = 'running'`);
  const { rows: [existing] } = await control.query<{ n: string }>('SELECT count(*) AS n FROM products');
  const existingProducts = Number(existing?.n ?? 0);
  if (existingProducts > 0 && !replace) {
    throw new LoadError(`the catalogue already has ${existingProducts.toLocaleString('en-US')} products; pass --replace to replace it`);
  }
  await refuseWrites(control);
  if (existingProducts > 0) log('writes to the catalogue are refused (503, Retry-After) until the new catalogue is swapped in');
  const definitions = await liveDefinitions(control, STAGING_SCHEMA);
  const { rows: [run] } = await control.query<{ id: number }>(
    `INSERT INTO load_runs (source_dir, status) VALUES ($1, 'running') RETURNING id`, [dir]);
  log(`load run ${run!.id}: loading ${dir}${existingProducts > 0 ? ` (replacing ${existingProducts.toLocaleString('en-US')} products)` : ''}`);

  await control.query(`DROP SCHEMA IF EXISTS ${STAGING_SCHEMA} CASCADE`);
  await control.query(`CREATE SCHEMA ${STAGING_SCHEMA}`);
  // Generated columns stay generated (none today; the drift check accepts
  // them): the staged tables become the live ones, whose later writes must keep them.
  // No autovacuum on them until the swap: it vacuumed and analysed the
  // big tables in the middle of the load (skus while photos were still
  // being copied, the browse rows four times between their chunks),
  // competing for the two cores; the loader analyses what it needs itself,
  // and autovacuum takes the live tables over after the swap.
  for (const table of STAGED_TABLES) {
    await control.query(`CREATE TABLE ${STAGING_SCHEMA}.${table} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING GENERATED)
      WITH (${NO_AUTOVACUUM})`);
  }
  return { runId: run!.id, definitions };
}

/** 1. Files, phase by phase, each file parsed on every core and copied on its own connections. */
async function stageFiles({ pool }: LoadSession, dir: string, runId: number, options: LoadOptions, progress: Progress | undefined): Promise<FileStats[]> {
  const copyStreams = options.copyStreams ?? COPY_STREAMS;
  const loaded: LoadedIds = { products: new IdSet(), styles: new IdSet() };
  const rejectsClient = await pool.connect();
  const rejects = new RejectsWriter(rejectsClient, runId);
  const parsers = new ParsePool(options.parseThreads);
  const files: FileStats[] = [];
  try {
    for (const phase of PHASES) {
      parsers.setParents(loaded);
      files.push(...await Promise.all(phase.map(async (file) => {
        const spec = TABLE_BY_FILE[file];
        const clients: pg.PoolClient[] = [];
        let broken = false;
        try {
          for (let i = 0; i < copyStreams; i++) clients.push(await pool.connect());
          const task = progress?.task(spec.fileName, fs.statSync(path.join(dir, spec.fileName)).size, 'bytes');
          return await loadFile({ spec, dir, clients, pool: parsers, loaded, rejects, progress: task, chunkBytes: options.chunkBytes });
        } catch (error) {
          broken = true;
          throw error;
        } finally {
          for (const client of clients) client.release(broken);
        }
      })));
    }
  } finally {
    await parsers.close();
    await rejects.close().catch(() => {});
    rejectsClient.release();
  }
  return files;
}

/** Runs one statement on a connection of its own; resolves with its backend's CPU seconds, where known. */
function ddlOn({ pool, cpu }: LoadSession): (sql: string) => () => Promise<number | undefined> {
  return (sql) => async () => {
    const c = await pool.connect();
    try {
      const before = cpu.backendSeconds(c);
      await c.query(sql);
      const after = cpu.backendSeconds(c);
      return before === undefined || after === undefined ? undefined : after - before;
    } finally {
      c.release();
    }
  };
}

const isCatalogueTable = (b: { table: string }) => (CATALOG_TABLES as readonly string[]).includes(b.table);

/**
 * 2. The catalogue's keys (every index build after them: adding a key locks
 * its table), its foreign keys added NOT VALID (instant; they lock both
 * tables, so before any other build).
 */
async function buildKeys(session: LoadSession, definitions: Definitions, progress: Progress | undefined): Promise<void> {
  const build = (sql: string) => ddlOn(session)(`${BUILD_SETTINGS}; ${sql}`);
  const keys = definitions.keys.filter((b) => isCatalogueTable(b) || KEYED_BEFORE_ROWS.includes(b.table));
  const keysProgress = progress?.task('primary keys', keys.length, 'builds');
  let keysBuilt = 0;
  await runPool(keys.map((b) => async () => { await build(b.sql)(); keysProgress?.update(++keysBuilt); }), BUILD_CONNECTIONS);
  keysProgress?.finish();
  await session.control.query(`SET search_path = ${STAGING_SCHEMA}, public`);
  for (const fk of definitions.foreignKeys.filter(isCatalogueTable)) await session.control.query(fk.sql);
}

/**
 * Then one graph of tasks on two connections (task-graph.ts): the
 * catalogue's indexes, the foreign keys validated (one join each), ANALYZE,
 * the read models and their own keys and indexes, each task as soon as what
 * it needs is done and a connection is free.
 */
async function buildGraph(session: LoadSession, definitions: Definitions, progress: Progress | undefined): Promise<{ busy: BusySeconds; cpu: BusySeconds }> {
  const ddl = ddlOn(session);
  const build = (sql: string) => ddl(`${BUILD_SETTINGS}; ${sql}`);
  const { rows: [range] } = await session.control.query<{ max: number | null }>(`SELECT max(id) AS max FROM ${STAGING_SCHEMA}.products`);
  // Every product id in search order, read once, when the first browse rows are built (their tasks wait for products and related).
  let order: Promise<number[]> | undefined;
  const inSearchOrder = () => order ??= session.pool.query<{ ids: number[] | null }>(`SET LOCAL search_path = ${STAGING_SCHEMA}; SELECT array_agg(product_id ORDER BY search_order) AS ids FROM public.product_search_orders()`)
    .then((results) => (results as unknown as pg.QueryResult<{ ids: number[] | null }>[])[1]?.rows[0]?.ids ?? []);
  const graph = buildTasks(definitions, range?.max ?? 0, ddl, build, inSearchOrder);
  return runGraph(graph, BUILD_CONNECTIONS, graphProgress(progress, graph));
}

/** The read model's foreign keys and the triggers that keep it in sync from the swap on (each locks its tables: after every build). */
async function finishReadModels(session: LoadSession, definitions: Definitions, progress: Progress | undefined): Promise<void> {
  const { control } = session;
  const readModelKeys = definitions.foreignKeys.filter((fk) => !isCatalogueTable(fk));
  const finishing = progress?.task('read models\' foreign keys and triggers', 2 * readModelKeys.length + definitions.triggers.length, 'builds');
  let finished = 0;
  for (const fk of readModelKeys) { await control.query(fk.sql); finishing?.update(++finished); }
  await runPool(readModelKeys.map((fk) => async () => {
    await ddlOn(session)(`ALTER TABLE ${STAGING_SCHEMA}.${fk.table} VALIDATE CONSTRAINT ${fk.name}`)();
    finishing?.update(++finished);
  }), BUILD_CONNECTIONS);
  await control.query('SET search_path = public');
  for (const trigger of definitions.triggers) { await control.query(trigger); finishing?.update(++finished); }
  finishing?.finish();
}

/**
 * 3. The swap: one short transaction. The staged tables replace the live
 * ones; each id sequence goes past the loaded rows' ids and every id it has
 * handed out (a client that kept an id of the replaced catalogue must never
 * find it given to another row); the run is recorded (`recorded`, inside the
 * transaction) and announced: every serving instance hears it at the commit
 * (src/cache/change-feed.ts).
 */
async function swapIn(control: pg.PoolClient, recorded: () => Promise<void>): Promise<void> {
  await control.query('BEGIN');
  await control.query(`SET LOCAL lock_timeout = '30s'`);
  await control.query(`LOCK TABLE ${STAGED_TABLES.map((t) => `public.${t}`).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  for (const table of CATALOG_TABLES) await control.query(`ALTER SEQUENCE public.${table}_id_seq OWNED BY NONE`);
  await control.query(`DROP TABLE ${[...STAGED_TABLES].reverse().map((t) => `public.${t}`).join(', ')}`);
  for (const table of STAGED_TABLES) await control.query(`ALTER TABLE ${STAGING_SCHEMA}.${table} RESET (${NO_AUTOVACUUM.replaceAll(' = false', '')})`);
  for (const table of READ_MODEL_TABLES) await control.query(`ALTER TABLE ${STAGING_SCHEMA}.${table} SET SCHEMA public`);
  for (const table of CATALOG_TABLES) {
    await control.query(`ALTER TABLE ${STAGING_SCHEMA}.${table} SET SCHEMA public`);
    await control.query(`ALTER SEQUENCE public.${table}_id_seq OWNED BY public.${table}.id`);
    await control.query(`SELECT setval('public.${table}_id_seq', GREATEST(loaded, handed, 1), GREATEST(loaded, handed) > 0)
      FROM (SELECT COALESCE(max(id), 0) AS loaded FROM public.${table}) AS l,
           (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS handed FROM public.${table}_id_seq) AS h`);
  }
  await control.query(`DROP SCHEMA ${STAGING_SCHEMA}`);
  // Idempotency keys name products of the catalogue just replaced (the files may give their ids to other products).
  await control.query('DELETE FROM public.idempotency_keys');
  await recorded();
  await control.query(NOTIFY_REPLACED);
  await control.query('COMMIT');
}

/**
 * The swap, run again after a deadlock. The API's writes are refused during
 * a load, but a session of another program that locked a child table first
 * (a sku inserted, its foreign-key check then asking for its style) while the
 * swap holds the parents and waits for the children completes a cycle, and
 * Postgres aborts the swap: rolled back whole, it only has to be tried again.
 */
async function swapWithRetries(control: pg.PoolClient, recorded: () => Promise<void>, log: (message: string) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await swapIn(control, recorded);
    } catch (error) {
      if (!isWriteConflict(error) || attempt >= SWAP_ATTEMPTS) throw error;
      await control.query('ROLLBACK');
      log(`the swap met a deadlock with a concurrent write; trying again (${attempt} of ${SWAP_ATTEMPTS - 1} retries)`);
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

function summarise(runId: number, files: FileStats[], marks: PhaseMarks, graph: { busy: BusySeconds; cpu: BusySeconds }): LoadSummary {
  const counts = {} as Record<Table, number>;
  for (const stats of files) counts[TABLES.find((t) => t.fileName === stats.file)!.table] = stats.loaded;
  const minus = (a: CpuSeconds, b: CpuSeconds): CpuSeconds => ({
    loader: a.loader - b.loader, database: a.database === undefined || b.database === undefined ? undefined : a.database - b.database,
    host: a.host === undefined || b.host === undefined ? undefined : a.host - b.host,
    wanted: a.wanted === undefined || b.wanted === undefined ? undefined : a.wanted - b.wanted,
  });
  const seconds = (phase: PhaseName, after: PhaseName) => (marks[phase].at - marks[after].at) / 1000;
  const cpu = (phase: PhaseName, after: PhaseName) => minus(marks[phase].cpu, marks[after].cpu);
  return {
    runId,
    files: TABLES.map((t) => files.find((f) => f.file === t.fileName)!),
    counts,
    seconds: {
      files: seconds('files', 'start'), keys: seconds('keys', 'files'), build: seconds('build', 'keys'), busy: graph.busy,
      finish: seconds('finish', 'build'), swap: seconds('swap', 'finish'), total: seconds('swap', 'start'),
    },
    buildCpu: graph.cpu,
    peakMemoryMb: Math.round(process.resourceUsage().maxRSS / 1024),
    cpu: {
      files: marks.files.cpu, keys: cpu('keys', 'files'), build: cpu('build', 'keys'), finish: cpu('finish', 'build'),
      swap: cpu('swap', 'finish'), total: marks.swap.cpu,
    },
  };
}

export async function loadCatalogue(options: LoadOptions): Promise<LoadSummary> {
  const log = options.log ?? (() => {});
  const dir = path.resolve(options.dir);
  const marks = {} as PhaseMarks;
  marks.start = { at: performance.now(), cpu: { loader: 0 } };
  await checkFiles(dir);
  await migrate(options.databaseUrl, log);
  const session = await openSession(options);
  const { control } = session;
  const mark = (phase: PhaseName) => { marks[phase] = { at: performance.now(), cpu: session.cpu.read() }; };
  let runId: number | undefined;
  let swapped = false;
  const progress = options.progress ? new Progress(options.progress === true ? {} : options.progress) : undefined;
  try {
    const begun = await beginRun(control, dir, options.replace, log);
    runId = begun.runId;
    const { definitions } = begun;
    const files = await stageFiles(session, dir, runId, options, progress);
    mark('files');
    log('building primary keys, indexes and foreign keys, the style and detail documents and the browse read model');
    await buildKeys(session, definitions, progress);
    mark('keys');
    const graph = await buildGraph(session, definitions, progress);
    mark('build');
    await finishReadModels(session, definitions, progress);
    mark('finish');
    if (options.beforeSwap) await options.beforeSwap(control);

    progress?.log('swapping the new catalogue in');
    let summary: LoadSummary | undefined;
    await swapWithRetries(control, async () => {
      mark('swap');
      summary = summarise(runId!, files, marks, graph);
      await control.query(`UPDATE load_runs SET status = 'succeeded', finished_at = now(), summary = $2 WHERE id = $1`, [runId, JSON.stringify(summary)]);
    }, log);
    swapped = true;
    return summary!;
  } catch (error) {
    await control.query('ROLLBACK').catch(() => {});
    if (!swapped) {
      await control.query(`DROP SCHEMA IF EXISTS ${STAGING_SCHEMA} CASCADE`).catch(() => {});
      if (runId !== undefined) {
        await control.query(`UPDATE load_runs SET status = 'failed', finished_at = now(), summary = $2 WHERE id = $1`,
          [runId, JSON.stringify({ error: (error as Error).message })]).catch(() => {});
      }
    }
    throw error;
  } finally {
    progress?.stop();
    await closeSession(session);
  }
}
