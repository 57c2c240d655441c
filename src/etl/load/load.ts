// Loads the six legacy files into the catalogue without ever leaving it half
// replaced: rows go into fresh tables in a staging schema, which get the same
// keys, indexes and foreign keys as the live tables (read from the live
// definitions, so they cannot drift from the migrations), are analysed, and
// then replace the live tables in one short transaction. Any failure before
// that transaction leaves the previous catalogue exactly as it was.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../db/server/migrate.ts';
import { Progress } from '../progress.ts';
import { IdSet } from './id-set.ts';
import { CopyWriter } from './copy-writer.ts';
import { type FileStats, LoadError, type RejectSink, STAGING_SCHEMA, loadFile } from './file-loader.ts';
import { readHeader } from './reader.ts';
import { TABLES, TABLE_BY_FILE, type LoadedIds, type Table } from './tables.ts';

export { LoadError } from './file-loader.ts';

/** Live tables, parents before children. */
const CATALOG_TABLES: Table[] = ['products', 'features', 'styles', 'photos', 'skus', 'related'];
/** Tables derived from the catalogue (no file, no id sequence), rebuilt and swapped in with it. */
const READ_MODEL_TABLES = ['product_style_documents', 'product_browse', 'browse_facet_cells', 'browse_size_cells', 'search_lexemes'];
const STAGED_TABLES = [...CATALOG_TABLES, ...READ_MODEL_TABLES];
/** Products per call when building style documents: big enough to amortise, small enough to spread over connections. */
const DOCUMENT_CHUNK = 20_000;
// Files that only depend on already-loaded parents run side by side.
const PHASES = [['product'], ['styles', 'features', 'related'], ['skus', 'photos']] as const;
const LOAD_LOCK = 72707370;

export interface LoadOptions {
  databaseUrl: string;
  dir: string;
  replace: boolean;
  log?: (message: string) => void;
  /** Show progress bars/lines on stderr. */
  progress?: boolean;
  /** Test hook: called between loading the files and swapping them in. */
  beforeSwap?: (client: pg.PoolClient) => Promise<void>;
}

export interface LoadSummary {
  runId: number;
  files: FileStats[];
  counts: Record<Table, number>;
  seconds: { files: number; constraints: number; analyze: number; documents: number; swap: number; total: number };
  /** Peak resident memory of this (loader) process, in MB. */
  peakMemoryMb: number;
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

interface LiveDefinitions {
  primaryKeys: string[];
  indexes: string[];
  /** Indexes of the read model tables: built after their rows (one bulk build each, not row by row). */
  readModelIndexes: string[];
  foreignKeys: { table: string; name: string; definition: string }[];
  /** Triggers (the read model's upkeep), created on the staging tables before the swap. */
  triggers: string[];
}

/** Keys, indexes, foreign keys and triggers of the live catalogue tables, as SQL for the staging schema. */
async function liveDefinitions(client: pg.PoolClient): Promise<LiveDefinitions> {
  await client.query('SET search_path = public');
  const constraints = await client.query<{ table: string; name: string; type: string; definition: string }>(`
    SELECT c.conrelid::regclass::text AS table, c.conname AS name, c.contype AS type, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1) AND c.contype IN ('p', 'u', 'f')
    ORDER BY c.conname`, [STAGED_TABLES]);
  const indexes = await client.query<{ definition: string; readModel: boolean }>(`
    SELECT pg_get_indexdef(i.indexrelid) AS definition, t.relname = ANY($2) AS "readModel"
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1)
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY 1`, [STAGED_TABLES, READ_MODEL_TABLES]);
  const triggers = await client.query<{ definition: string }>(`
    SELECT pg_get_triggerdef(g.oid) AS definition
    FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1) AND NOT g.tgisinternal
    ORDER BY 1`, [STAGED_TABLES]);
  const staged = (table: string) => `${STAGING_SCHEMA}.${table.replace(/^public\./, '')}`;
  return {
    primaryKeys: constraints.rows.filter((c) => c.type !== 'f').map((c) => `ALTER TABLE ${staged(c.table)} ADD CONSTRAINT ${c.name} ${c.definition}`),
    indexes: indexes.rows.filter((i) => !i.readModel).map((i) => i.definition.replace(/ ON public\./, ` ON ${STAGING_SCHEMA}.`)),
    readModelIndexes: indexes.rows.filter((i) => i.readModel).map((i) => i.definition.replace(/ ON public\./, ` ON ${STAGING_SCHEMA}.`)),
    foreignKeys: constraints.rows.filter((c) => c.type === 'f').map((c) => ({ table: staged(c.table), name: c.name, definition: c.definition })),
    triggers: triggers.rows.map((t) => t.definition.replace(/ ON public\./, ` ON ${STAGING_SCHEMA}.`)),
  };
}

export async function loadCatalogue(options: LoadOptions): Promise<LoadSummary> {
  const log = options.log ?? (() => {});
  const dir = path.resolve(options.dir);
  const startedAt = performance.now();
  await checkFiles(dir);
  await migrate(options.databaseUrl, log);

  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 6 });
  pool.on('error', () => {}); // idle clients dropped by the server; queries report their own errors
  const control = await pool.connect();
  // Only one load per database: the staging schema is shared, so a second
  // load must stop before touching anything.
  const { rows: [lock] } = await control.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LOAD_LOCK]);
  if (!lock?.ok) {
    control.release();
    await pool.end();
    throw new LoadError('another data:load is running against this database');
  }
  let runId: number | undefined;
  let swapped = false;
  try {

    const { rows: [existing] } = await control.query<{ n: string }>('SELECT count(*) AS n FROM products');
    const existingProducts = Number(existing?.n ?? 0);
    if (existingProducts > 0 && !options.replace) {
      throw new LoadError(`the catalogue already has ${existingProducts.toLocaleString('en-US')} products; pass --replace to replace it`);
    }
    const definitions = await liveDefinitions(control);
    const { rows: [run] } = await control.query<{ id: number }>(
      `INSERT INTO load_runs (source_dir, status) VALUES ($1, 'running') RETURNING id`, [dir]);
    runId = run!.id;
    log(`load run ${runId}: loading ${dir}${existingProducts > 0 ? ` (replacing ${existingProducts.toLocaleString('en-US')} products)` : ''}`);

    await control.query(`DROP SCHEMA IF EXISTS ${STAGING_SCHEMA} CASCADE`);
    await control.query(`CREATE SCHEMA ${STAGING_SCHEMA}`);
    for (const table of STAGED_TABLES) {
      await control.query(`CREATE TABLE ${STAGING_SCHEMA}.${table} (LIKE public.${table} INCLUDING DEFAULTS)`);
    }

    // 1. Files, phase by phase, each file on its own connection.
    const progress = new Progress();
    const loaded: LoadedIds = { products: new IdSet(), styles: new IdSet() };
    const rejectsClient = await pool.connect();
    const rejects = new RejectsWriter(rejectsClient, runId);
    const files: FileStats[] = [];
    try {
      for (const phase of PHASES) {
        const results = await Promise.all(phase.map(async (file) => {
          const spec = TABLE_BY_FILE[file];
          const client = await pool.connect();
          let broken = false;
          try {
            const task = options.progress ? progress.task(spec.fileName, fs.statSync(path.join(dir, spec.fileName)).size) : undefined;
            return await loadFile({ spec, dir, client, loaded, rejects, progress: task });
          } catch (error) {
            broken = true;
            throw error;
          } finally {
            client.release(broken);
          }
        }));
        files.push(...results);
      }
    } finally {
      await rejects.close().catch(() => {});
      rejectsClient.release();
    }
    const filesDone = performance.now();

    // 2. Keys, then indexes and foreign keys (added NOT VALID, then validated,
    //    so validations of different tables do not block each other).
    const ddl = (sql: string) => async () => { const c = await pool.connect(); try { await c.query(sql); } finally { c.release(); } };
    log('building primary keys, indexes and foreign keys');
    await runPool(definitions.primaryKeys.map(ddl), 2);
    for (const fk of definitions.foreignKeys) {
      await control.query(`SET search_path = ${STAGING_SCHEMA}; ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} ${fk.definition} NOT VALID`);
    }
    await runPool([
      ...definitions.indexes.map(ddl),
      ...definitions.foreignKeys.map((fk) => ddl(`ALTER TABLE ${fk.table} VALIDATE CONSTRAINT ${fk.name}`)),
    ], 2);
    await control.query('SET search_path = public');
    const constraintsDone = performance.now();

    log('analysing');
    await runPool(CATALOG_TABLES.map((t) => ddl(`ANALYZE ${STAGING_SCHEMA}.${t}`)), 2);
    const analyzeDone = performance.now();

    // The read model, built by the function its triggers use, run against the
    // staging tables (it names its tables without a schema; SET LOCAL lasts
    // for this one implicit transaction). Then the triggers that keep it in
    // sync from the swap on.
    log('building style documents and browse rows');
    const { rows: [range] } = await control.query<{ max: number | null }>(`SELECT max(id) AS max FROM ${STAGING_SCHEMA}.products`);
    const chunks: (() => Promise<void>)[] = [];
    for (let from = 0; from < (range?.max ?? 0); from += DOCUMENT_CHUNK) {
      const ids = `ARRAY(SELECT id FROM products WHERE id > ${from} AND id <= ${from + DOCUMENT_CHUNK})`;
      chunks.push(ddl(`SET LOCAL search_path = ${STAGING_SCHEMA}; SELECT public.refresh_product_style_documents(${ids})`));
      chunks.push(ddl(`SET LOCAL search_path = ${STAGING_SCHEMA}; SELECT public.refresh_product_browse(${ids})`));
    }
    await runPool(chunks, 2);
    // Facet cells and search lexemes from the browse rows, then the read model's indexes (docs/browse.md).
    await ddl(`SET LOCAL search_path = ${STAGING_SCHEMA}; SELECT public.rebuild_browse_aggregates()`)();
    await runPool(definitions.readModelIndexes.map(ddl), 2);
    await runPool([...definitions.triggers, ...READ_MODEL_TABLES.map((t) => `ANALYZE ${STAGING_SCHEMA}.${t}`)].map(ddl), 1);
    const documentsDone = performance.now();

    if (options.beforeSwap) await options.beforeSwap(control);

    // 3. The swap: one short transaction.
    await control.query('BEGIN');
    await control.query(`SET LOCAL lock_timeout = '30s'`);
    await control.query(`LOCK TABLE ${STAGED_TABLES.map((t) => `public.${t}`).join(', ')} IN ACCESS EXCLUSIVE MODE`);
    for (const table of CATALOG_TABLES) await control.query(`ALTER SEQUENCE public.${table}_id_seq OWNED BY NONE`);
    await control.query(`DROP TABLE ${[...STAGED_TABLES].reverse().map((t) => `public.${t}`).join(', ')}`);
    for (const table of READ_MODEL_TABLES) await control.query(`ALTER TABLE ${STAGING_SCHEMA}.${table} SET SCHEMA public`);
    for (const table of CATALOG_TABLES) {
      await control.query(`ALTER TABLE ${STAGING_SCHEMA}.${table} SET SCHEMA public`);
      await control.query(`ALTER SEQUENCE public.${table}_id_seq OWNED BY public.${table}.id`);
      await control.query(`SELECT setval('public.${table}_id_seq', COALESCE((SELECT max(id) FROM public.${table}), 1), (SELECT count(*) > 0 FROM public.${table}))`);
    }
    await control.query(`DROP SCHEMA ${STAGING_SCHEMA}`);
    // Idempotency keys name products of the catalogue just replaced (ids are reused).
    await control.query('DELETE FROM public.idempotency_keys');
    const counts = {} as Record<Table, number>;
    for (const stats of files) counts[TABLES.find((t) => t.fileName === stats.file)!.table] = stats.loaded;
    const swapDone = performance.now();
    const summary: LoadSummary = {
      runId,
      files: TABLES.map((t) => files.find((f) => f.file === t.fileName)!),
      counts,
      seconds: {
        files: (filesDone - startedAt) / 1000,
        constraints: (constraintsDone - filesDone) / 1000,
        analyze: (analyzeDone - constraintsDone) / 1000,
        documents: (documentsDone - analyzeDone) / 1000,
        swap: (swapDone - documentsDone) / 1000,
        total: (swapDone - startedAt) / 1000,
      },
      peakMemoryMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    await control.query(`UPDATE load_runs SET status = 'succeeded', finished_at = now(), summary = $2 WHERE id = $1`, [runId, JSON.stringify(summary)]);
    await control.query('COMMIT');
    swapped = true;
    return summary;
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
    await control.query('SELECT pg_advisory_unlock($1)', [LOAD_LOCK]).catch(() => {});
    control.release();
    await pool.end();
  }
}
