// Everything of a database's public schema that its migrations and function
// files decide, read from the catalogue as Postgres prints it: extensions,
// tables and their options, columns in order (dropped ones left out), keys
// and constraints, indexes and their options, sequences, functions, triggers,
// types, views and comments. Two databases with equal snapshots behave alike
// (what pg_dump --schema-only prints, without needing a pg_dump of the
// server's version).
import { queryOnce as query } from '../../src/db/pool/query-once.ts';

/** Objects of extensions (pg_trgm's functions, ...) belong to the extension, not to the schema. */
const NOT_FROM_EXTENSION = (alias: string) => `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${alias}.oid AND d.deptype = 'e')`;

const PARTS: Record<string, string> = {
  extensions: `SELECT extname || ' ' || extversion AS line FROM pg_extension`,
  tables: `SELECT c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text || ' ' || coalesce(c.reloptions::text, '') AS line
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
  columns: `SELECT c.relname || ' #' || lpad((row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum))::text, 3, '0') || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
      || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
      || coalesce(' DEFAULT ' || pg_get_expr(ad.adbin, ad.adrelid), '')
      || CASE WHEN a.attgenerated::text <> '' THEN ' GENERATED ' || a.attgenerated::text ELSE '' END
      || CASE WHEN a.attidentity::text <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
      || coalesce(' COLLATE ' || nullif(co.collname, 'default'), '')
      || coalesce(' STATISTICS ' || a.attstattarget::text, '') || ' STORAGE ' || a.attstorage::text AS line
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE n.nspname = 'public' AND c.relkind::text IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped`,
  constraints: `SELECT c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) AS line
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`,
  indexes: `SELECT pg_get_indexdef(i.indexrelid) AS line
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`,
  sequences: `SELECT c.relname || ' ' || format_type(s.seqtypid, NULL) || ' ' || s.seqstart || ' ' || s.seqincrement || ' ' || s.seqmin || ' ' || s.seqmax
      || ' ' || s.seqcache || ' ' || s.seqcycle::text || coalesce(' OWNED BY ' || (SELECT d.refobjid::regclass || '.' || d.refobjsubid FROM pg_depend d
        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')), '') AS line
    FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`,
  functions: `SELECT pg_get_functiondef(p.oid) AS line FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND ${NOT_FROM_EXTENSION('p')}`,
  triggers: `SELECT pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text AS line FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal`,
  types: `SELECT t.typname || ' ' || t.typtype::text AS line FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype::text IN ('e', 'd', 'r', 'm') AND ${NOT_FROM_EXTENSION('t')}`,
  views: `SELECT viewname || ' ' || definition AS line FROM pg_views WHERE schemaname = 'public'`,
  comments: `SELECT d.classoid::regclass || ' ' || d.objoid || ' ' || d.objsubid || ' ' || d.description AS line
    FROM pg_description d JOIN pg_class c ON c.oid = d.objoid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`,
};

export type SchemaSnapshot = Record<string, string[]>;

/** The public schema of the database at `url`, part by part, each part's lines sorted. */
export async function schemaSnapshot(url: string): Promise<SchemaSnapshot> {
  const snapshot: SchemaSnapshot = {};
  for (const [part, sql] of Object.entries(PARTS)) {
    snapshot[part] = (await query<{ line: string }>(url, `${sql} ORDER BY 1`)).map((row) => row.line);
  }
  return snapshot;
}
