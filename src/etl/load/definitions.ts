// The keys, indexes, foreign keys and triggers of the live catalogue tables,
// read from Postgres's catalog (so whatever the migrations define, including
// indexes added later, is built: there is no hand-kept list), rewritten for
// another schema holding tables of the same names.
import type pg from 'pg';
import { SEARCH_DICTIONARY_TABLES, SEARCH_RUNS_TABLE } from '../../search/read-model.ts';

/** Live tables, parents before children. */
export const CATALOG_TABLES = ['products', 'features', 'styles', 'photos', 'skus', 'related'] as const;
/**
 * Tables derived from the catalogue (no file, no id sequence), rebuilt and
 * swapped in with it: the style and detail documents, and the browse read model
 * (docs/browse.md: browse rows, facet cells, search lexemes, the words found
 * together in names, the counts kept for common words).
 */
export const READ_MODEL_TABLES = [
  'product_style_documents', 'product_detail_documents', SEARCH_RUNS_TABLE, 'product_browse',
  'browse_facet_cells', 'browse_size_cells', 'browse_size_sets', 'browse_size_set_cells', 'browse_size_pair_cells', ...SEARCH_DICTIONARY_TABLES,
] as const;
/**
 * Read-model tables whose rows the loader builds with the triggers' own
 * function, an upsert (ON CONFLICT on the key): their keys are built before
 * their rows. Every other table gets its keys after its rows.
 */
export const KEYED_BEFORE_ROWS: readonly string[] = ['product_browse'] satisfies (typeof READ_MODEL_TABLES)[number][];
export const STAGED_TABLES: readonly string[] = [...CATALOG_TABLES, ...READ_MODEL_TABLES];

/**
 * Session settings for bulk index builds (the server's default
 * maintenance_work_mem, 64 MB, makes every big build spill to disk). The
 * loader and the benchmark's baseline use the same ones.
 */
export const BUILD_SETTINGS = `SET maintenance_work_mem = '256MB'; SET max_parallel_maintenance_workers = 0`;

export interface Build {
  /** The table, without its schema. */
  table: string;
  sql: string;
}

export interface Definitions {
  /** Primary keys and unique constraints (they build an index each). */
  keys: Build[];
  /** Every other index. */
  indexes: Build[];
  foreignKeys: { table: string; name: string; definition: string; sql: string }[];
  /** Triggers (the read model's upkeep). */
  triggers: string[];
}

/** The definitions on `public.<tables>`, as SQL for the same tables in `schema`. */
export async function liveDefinitions(client: pg.ClientBase, schema: string, tables: readonly string[] = STAGED_TABLES): Promise<Definitions> {
  await client.query('SET search_path = public');
  const constraints = await client.query<{ table: string; name: string; type: string; definition: string }>(`
    SELECT t.relname AS table, c.conname AS name, c.contype AS type, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1) AND c.contype IN ('p', 'u', 'f')
    ORDER BY c.conname`, [tables]);
  const indexes = await client.query<{ table: string; definition: string }>(`
    SELECT t.relname AS table, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1)
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY pg_relation_size(t.oid) DESC, 1`, [tables]);
  const triggers = await client.query<{ definition: string }>(`
    SELECT pg_get_triggerdef(g.oid) AS definition
    FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND t.relname = ANY($1) AND NOT g.tgisinternal
    ORDER BY 1`, [tables]);
  // pg_get_*def qualify the table as public.x (search_path is public); a
  // foreign key's REFERENCES is left unqualified and resolved by the caller's search_path.
  const onSchema = (definition: string) => definition.replace(/ ON public\./, ` ON ${schema}.`);
  return {
    keys: constraints.rows.filter((c) => c.type !== 'f').map((c) => ({ table: c.table, sql: `ALTER TABLE ${schema}.${c.table} ADD CONSTRAINT ${c.name} ${c.definition}` })),
    indexes: indexes.rows.map((i) => ({ table: i.table, sql: onSchema(i.definition) })),
    foreignKeys: constraints.rows.filter((c) => c.type === 'f').map((c) => ({
      table: c.table, name: c.name, definition: c.definition,
      // Added NOT VALID (instant), validated later with one join instead of row by row.
      sql: `ALTER TABLE ${schema}.${c.table} ADD CONSTRAINT ${c.name} ${c.definition} NOT VALID`,
    })),
    triggers: triggers.rows.map((t) => onSchema(t.definition)),
  };
}
