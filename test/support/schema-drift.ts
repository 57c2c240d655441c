// Compares a live Postgres database with prisma/schema.prisma and lists every
// difference in plain words. The migrations are hand-written, so nothing but
// this check stops them from quietly disagreeing with the schema the generated
// client is built from.
//
// The schema side comes from Prisma's own parser (the DMMF from
// @prisma/prisma-schema-wasm), so @map/@@map, defaults and relations are read
// exactly as Prisma reads them. The database side comes from the Postgres
// catalogs. Both directions are checked: what the schema declares must exist,
// and what exists must be declared.
//
// The checker is deliberately strict about what it does not understand (list
// fields, Unsupported types, operator classes, unknown native types...): it
// reports them as differences rather than skipping them, so a schema change
// it cannot verify fails the test and prompts extending this file, instead of
// passing unchecked.
import fs from 'node:fs';
import path from 'node:path';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import pg from 'pg';
// Json defaults are compared with keys sorted: jsonb does not keep the written key order.
import { canonicalJson } from '../../src/util/canonical-json.ts';

export const SCHEMA_PATH = path.resolve(import.meta.dirname, '../../prisma/schema.prisma');

// Our runner's bookkeeping tables (versioned migrations, and the repeatable
// function definitions of prisma/functions): they exist in every migrated
// database but are not (and must not be) models.
const IGNORED_TABLES = new Set(['_prisma_migrations', '_repeatable_migrations']);

// Indexes Prisma's schema language cannot declare (a partial index), made by
// a migration and named here with why; any other is a difference.
const MIGRATION_ONLY_INDEXES = new Map([
  ['search_lexemes_word_trgm_idx', 'the typo lookup\'s trigram index over plain words: letters and digits, not bare numbers (docs/browse.md)'],
  // A btree_gin column (the run of search_order) before the search document: searches read a tier run by run (docs/browse.md).
  ...['match_a', 'match_ab', 'match_abc', 'document'].map((column) => [`product_browse_${column}_search_idx`, `the ${column} search tier by run of search_order (docs/browse.md)`] as const),
]);

// Postgres truncates identifiers to 63 bytes, and Prisma shortens its default
// constraint names to fit (see ConstraintNames in prisma-engines).
const MAX_IDENTIFIER_LENGTH = 63;

// ---------------------------------------------------------------------------
// The schema side: the parts of Prisma's DMMF this checker reads.
// ---------------------------------------------------------------------------

type ReferentialAction = 'Cascade' | 'Restrict' | 'NoAction' | 'SetNull' | 'SetDefault';

interface DmmfFunctionDefault {
  name: string;
  args: unknown[];
}

type DmmfDefault = DmmfFunctionDefault | string | number | boolean | unknown[];

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  type: string;
  nativeType: [string, string[]] | null;
  default?: DmmfDefault;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: ReferentialAction;
  relationOnUpdate?: ReferentialAction;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  schema: string | null;
  fields: DmmfField[];
}

interface DmmfEnum {
  name: string;
  dbName: string | null;
  values: { name: string; dbName: string | null }[];
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  isDefinedOnField: boolean;
  dbName?: string;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc'; operatorClass?: string; length?: number }[];
}

export interface Datamodel {
  models: DmmfModel[];
  enums: DmmfEnum[];
  indexes: DmmfIndex[];
}

/** Parses a Prisma schema with Prisma's own parser and returns its datamodel. */
export function loadDatamodel(schemaPath = SCHEMA_PATH): Datamodel {
  const prismaSchema = fs.readFileSync(schemaPath, 'utf8');
  // get_dmmf takes JSON `{ prismaSchema }` (a string, or [[path, content]]
  // pairs for multi-file schemas) and throws an Error whose message is JSON
  // with the validation errors when the schema is invalid.
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema }))) as { datamodel: Datamodel };
  addUnsupportedFields(dmmf.datamodel, prismaSchema);
  return dmmf.datamodel;
}

/**
 * The DMMF leaves `Unsupported("type")` fields out, so they are read from the
 * schema text: `name Unsupported("tsvector")[?] [@map("column")]` inside a
 * model block. Each becomes a field of kind 'unsupported' whose type is the
 * Postgres type as written (compared with format_type()).
 */
function addUnsupportedFields(datamodel: Datamodel, prismaSchema: string): void {
  for (const block of prismaSchema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const model = datamodel.models.find((candidate) => candidate.name === block[1]);
    if (!model) continue;
    for (const line of (block[2] ?? '').matchAll(/^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/gm)) {
      const [, name, type, optional, rest] = line;
      model.fields.push({
        name: name as string, dbName: /@map\("([^"]+)"\)/.exec(rest ?? '')?.[1] ?? null, kind: 'unsupported',
        isList: false, isRequired: optional !== '?', type: type as string, nativeType: null,
      });
    }
  }
}

// ---------------------------------------------------------------------------
// The database side, read from the Postgres catalogs of the current schema.
// ---------------------------------------------------------------------------

interface DbTable {
  name: string;
  kind: string;
}

interface DbColumn {
  table: string;
  name: string;
  /** format_type() output, e.g. `timestamp(3) with time zone`; the bare type name for enums. */
  type: string;
  notNull: boolean;
  /** pg_get_expr() of the default, e.g. `nextval('skus_id_seq'::regclass)`. */
  default: string | null;
  identity: string;
  generated: string;
}

interface DbIndex {
  table: string;
  name: string;
  unique: boolean;
  primary: boolean;
  method: string;
  /** Key columns in order; null for an expression. */
  columns: (string | null)[];
  /** Operator class of each key column, and whether it is its type's default for the index method. */
  opclasses: string[];
  defaultOpclasses: boolean[];
  descending: boolean[];
  partial: boolean;
  includesColumns: boolean;
}

interface DbForeignKey {
  table: string;
  name: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

interface DbConstraint {
  table: string;
  name: string;
  kind: string;
  definition: string;
}

export interface DbSchema {
  tables: DbTable[];
  columns: DbColumn[];
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
  otherConstraints: DbConstraint[];
  enums: { name: string; values: string[] }[];
}

const RELKINDS: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', f: 'foreign table' };

const ACTIONS: Record<string, ReferentialAction> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

/** Reads tables, columns, indexes, foreign keys, other constraints and enums. */
export async function introspect(client: pg.ClientBase): Promise<DbSchema> {
  const tables = await client.query<DbTable>(`
    SELECT c.relname AS name, c.relkind AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    ORDER BY c.relname`);

  const columns = await client.query<DbColumn>(`
    SELECT c.relname AS table, a.attname AS name,
           -- format_type quotes enum names ("Color"); compare enums by bare name.
           CASE WHEN t.typtype = 'e' THEN t.typname::text ELSE format_type(a.atttypid, a.atttypmod) END AS type,
           a.attnotnull AS "notNull", pg_get_expr(d.adbin, d.adrelid) AS default,
           a.attidentity AS identity, a.attgenerated AS generated
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
      AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`);

  // indkey lists the key columns first (indnkeyatts of them), then any INCLUDE
  // columns; an attnum of 0 is an expression. The low bit of indoption is DESC.
  const indexes = await client.query<DbIndex>(`
    SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
           am.amname AS method,
           ARRAY(SELECT a.attname::text
                 FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                 WHERE k.ord <= x.indnkeyatts ORDER BY k.ord) AS columns,
           ARRAY(SELECT (k.opt & 1) = 1
                 FROM unnest(x.indoption::int2[]) WITH ORDINALITY AS k(opt, ord)
                 ORDER BY k.ord) AS descending,
           ARRAY(SELECT o.opcname::text
                 FROM unnest(x.indclass::oid[]) WITH ORDINALITY AS k(opc, ord)
                 JOIN pg_opclass o ON o.oid = k.opc ORDER BY k.ord) AS opclasses,
           ARRAY(SELECT o.opcdefault
                 FROM unnest(x.indclass::oid[]) WITH ORDINALITY AS k(opc, ord)
                 JOIN pg_opclass o ON o.oid = k.opc ORDER BY k.ord) AS "defaultOpclasses",
           x.indpred IS NOT NULL AS partial,
           x.indnatts > x.indnkeyatts AS "includesColumns"
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_am am ON am.oid = i.relam
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()
    ORDER BY t.relname, i.relname`);

  const foreignKeys = await client.query<DbForeignKey>(`
    SELECT t.relname AS table, c.conname AS name, rt.relname AS "referencedTable",
           ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
           ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS "referencedColumns",
           c.confdeltype AS "onDelete", c.confupdtype AS "onUpdate"
    FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_class rt ON rt.oid = c.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype = 'f' AND n.nspname = current_schema()
    ORDER BY t.relname, c.conname`);

  // Prisma cannot declare CHECK or EXCLUDE constraints, so any is drift.
  // (Primary keys and unique constraints show up as indexes; from Postgres 18
  // on, NOT NULL is also a constraint row, checked via the column instead.)
  const otherConstraints = await client.query<DbConstraint>(`
    SELECT t.relname AS table, c.conname AS name, c.contype AS kind, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype IN ('c', 'x') AND n.nspname = current_schema()
    ORDER BY t.relname, c.conname`);

  const enums = await client.query<{ name: string; values: string[] }>(`
    SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
    FROM pg_type t
    JOIN pg_enum e ON e.enumtypid = t.oid
    JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = current_schema()
    GROUP BY t.typname
    ORDER BY t.typname`);

  const notIgnored = (row: { table: string }) => !IGNORED_TABLES.has(row.table);
  return {
    tables: tables.rows.filter((row) => !IGNORED_TABLES.has(row.name)),
    columns: columns.rows.filter(notIgnored),
    indexes: indexes.rows.filter((row) => notIgnored(row) && !MIGRATION_ONLY_INDEXES.has(row.name)),
    foreignKeys: foreignKeys.rows.filter(notIgnored),
    otherConstraints: otherConstraints.rows.filter(notIgnored),
    enums: enums.rows,
  };
}

// ---------------------------------------------------------------------------
// What the schema implies in Postgres terms, following Prisma's conventions.
// ---------------------------------------------------------------------------

function truncate(name: string, length: number): string {
  // Byte-accurate for the ASCII identifiers we use; Prisma truncates on a UTF-8
  // character boundary, which only matters for non-ASCII names.
  return name.length > length ? name.slice(0, length) : name;
}

function primaryKeyName(table: string): string {
  return `${truncate(table, MAX_IDENTIFIER_LENGTH - '_pkey'.length)}_pkey`;
}

function indexName(table: string, columns: string[], suffix: '_idx' | '_key'): string {
  return `${truncate(`${table}_${columns.join('_')}`, MAX_IDENTIFIER_LENGTH - suffix.length)}${suffix}`;
}

function foreignKeyName(table: string, columns: string[]): string {
  return `${truncate(`${table}_${columns.join('_')}`, MAX_IDENTIFIER_LENGTH - '_fkey'.length)}_fkey`;
}

// The column type Prisma's migrations create for a scalar without @db.*.
const DEFAULT_TYPES: Record<string, string> = {
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  String: 'text',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

const precision = (args: string[]) => (args[0] === undefined ? '' : `(${args[0]})`);

// The column type for each @db.* native type, spelled as format_type() prints it.
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => 'text',
  Char: (args) => `character(${args[0] ?? 1})`,
  VarChar: (args) => `character varying${precision(args)}`,
  Bit: (args) => `bit(${args[0] ?? 1})`,
  VarBit: (args) => `bit varying${precision(args)}`,
  Uuid: () => 'uuid',
  Xml: () => 'xml',
  Inet: () => 'inet',
  Citext: () => 'citext',
  SmallInt: () => 'smallint',
  Integer: () => 'integer',
  BigInt: () => 'bigint',
  Oid: () => 'oid',
  Real: () => 'real',
  DoublePrecision: () => 'double precision',
  Money: () => 'money',
  Decimal: (args) => (args.length === 0 ? 'numeric' : `numeric(${args[0]},${args[1] ?? 0})`),
  Boolean: () => 'boolean',
  ByteA: () => 'bytea',
  Json: () => 'json',
  JsonB: () => 'jsonb',
  Date: () => 'date',
  Timestamp: (args) => `timestamp${precision(args)} without time zone`,
  Timestamptz: (args) => `timestamp${precision(args)} with time zone`,
  Time: (args) => `time${precision(args)} without time zone`,
  Timetz: (args) => `time${precision(args)} with time zone`,
};

/** The Postgres type a field should have, or an explanation of why it cannot say. */
function expectedType(field: DmmfField, enumNames: Map<string, string>): { type: string } | { unsupported: string } {
  if (field.kind === 'enum') return { type: enumNames.get(field.type) ?? field.type };
  if (field.nativeType) {
    const [name, args] = field.nativeType;
    const render = NATIVE_TYPES[name];
    return render ? { type: render(args) } : { unsupported: `native type @db.${name}` };
  }
  const type = DEFAULT_TYPES[field.type];
  return type ? { type } : { unsupported: `type ${field.type}` };
}

// Defaults Prisma's client fills in itself: the column has no database default.
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

/** `@default(...)` as written in the schema, for messages. */
function describeDefault(value: DmmfDefault): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return `@default(${value.name}(${value.args.map((arg) => JSON.stringify(arg)).join(', ')}))`;
  }
  return `@default(${JSON.stringify(value)})`;
}

/** The literal inside a default expression: `'{}'::jsonb` → `{}`, `(-1)` → `-1`. */
function defaultLiteral(expression: string): string {
  let text = expression.trim();
  while (text.startsWith('(') && text.endsWith(')')) text = text.slice(1, -1).trim();
  text = text.replace(/(::("[^"]+"|[a-z_][a-z0-9_ ]*)(\(\d+(,\d+)?\))?(\[\])?)+$/i, '');
  if (text.startsWith("'") && text.endsWith("'")) text = text.slice(1, -1).replaceAll("''", "'");
  return text;
}

/**
 * Checks a column's database default against the field's @default. Returns a
 * problem description, or null when they agree.
 */
function compareDefault(field: DmmfField, actual: string | null, enums: DmmfEnum[]): string | null {
  const declared = field.default;
  const shown = (expression: string | null) => expression ?? 'none';

  // No @default, or one the client computes: the column must not have one
  // either, or inserts that skip the column would behave differently.
  if (declared === undefined || (typeof declared === 'object' && !Array.isArray(declared) && CLIENT_SIDE_DEFAULTS.has(declared.name))) {
    return actual === null ? null : `default in the database that the schema does not declare (database: ${actual})`;
  }
  if (actual === null) return `default missing from the database (schema: ${describeDefault(declared)})`;
  const differs = () => `default differs (schema: ${describeDefault(declared)}, database: ${shown(actual)})`;

  if (Array.isArray(declared)) return `checker cannot verify list default ${describeDefault(declared)}`;
  if (typeof declared === 'object') {
    switch (declared.name) {
      case 'autoincrement':
        // SERIAL/BIGSERIAL: a default drawing from the column's sequence.
        return /^nextval\('.+'::regclass\)$/.test(actual) ? null : differs();
      case 'now':
        // Prisma writes CURRENT_TIMESTAMP; it treats now() as the same thing.
        return actual === 'CURRENT_TIMESTAMP' || actual === 'now()' ? null : differs();
      case 'dbgenerated': {
        // dbgenerated("expr") should match what Postgres prints back; without an
        // argument it only promises that some default exists.
        const [expression] = declared.args;
        return typeof expression !== 'string' || expression.trim() === actual.trim() ? null : differs();
      }
      default:
        return `checker cannot verify ${describeDefault(declared)}`;
    }
  }

  // A literal: compare values, not spellings (`'hi'::text` is the default "hi").
  const literal = defaultLiteral(actual);
  switch (field.type) {
    case 'Boolean':
    case 'String':
      return literal === String(declared) ? null : differs();
    case 'Int':
    case 'BigInt':
    case 'Float':
    case 'Decimal':
      return Number(literal) === Number(declared) ? null : differs();
    case 'Json':
      try {
        const declaredJson = typeof declared === 'string' ? JSON.parse(declared) : declared;
        return canonicalJson(JSON.parse(literal)) === canonicalJson(declaredJson) ? null : differs();
      } catch {
        return differs();
      }
    default:
      if (field.kind === 'enum') {
        // The database holds the value's @map name, if it has one.
        const value = enums.find((item) => item.name === field.type)?.values.find((candidate) => candidate.name === declared);
        return literal === (value?.dbName ?? String(declared)) ? null : differs();
      }
      // e.g. a DateTime literal: Postgres reformats it, so only check presence.
      return null;
  }
}

// ---------------------------------------------------------------------------
// The comparison.
// ---------------------------------------------------------------------------

const list = (columns: readonly (string | null)[]) => `(${columns.map((column) => column ?? '<expression>').join(', ')})`;
const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((item, i) => item === b[i]);

interface ExpectedIndex {
  table: string;
  name: string;
  columns: string[];
  descending: boolean[];
  unique: boolean;
  primary: boolean;
  method: string;
  /** The operator class the schema names for each key column; undefined: the type's default. */
  opclasses: (string | undefined)[];
  /** What the schema says, for messages, e.g. `@@index([styleId])`. */
  source: string;
}

/** Compares a datamodel with an introspected database; returns the differences. */
export function compareSchema(datamodel: Datamodel, db: DbSchema): string[] {
  const differences: string[] = [];
  const modelsByName = new Map(datamodel.models.map((model) => [model.name, model]));
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const columnOf = (field: DmmfField) => field.dbName ?? field.name;
  const columnsOf = (model: DmmfModel, fieldNames: string[]) =>
    fieldNames.map((name) => {
      const field = model.fields.find((candidate) => candidate.name === name);
      return field ? columnOf(field) : name;
    });
  const enumNames = new Map(datamodel.enums.map((item) => [item.name, item.dbName ?? item.name]));

  // Enums: each one a Postgres enum type with the same values in the same order.
  const dbEnums = new Map(db.enums.map((item) => [item.name, item]));
  for (const item of datamodel.enums) {
    const name = item.dbName ?? item.name;
    const values = item.values.map((value) => value.dbName ?? value.name);
    const actual = dbEnums.get(name);
    dbEnums.delete(name);
    if (!actual) differences.push(`enum type ${name} (enum ${item.name}) missing from the database`);
    else if (!sameList(values, actual.values)) {
      differences.push(`enum type ${name}: values differ (schema: ${list(values)}, database: ${list(actual.values)})`);
    }
  }
  for (const extra of dbEnums.values()) differences.push(`enum type ${extra.name} in the database is not in the schema`);

  const dbTables = new Map(db.tables.map((table) => [table.name, table]));
  const expectedIndexes: ExpectedIndex[] = [];

  for (const model of datamodel.models) {
    const table = tableOf(model);
    if (model.schema !== null) differences.push(`${table}: checker does not support multi-schema models (@@schema("${model.schema}"))`);
    const dbTable = dbTables.get(table);
    dbTables.delete(table);
    if (!dbTable) {
      differences.push(`table ${table} (model ${model.name}) missing from the database`);
      continue;
    }
    if (dbTable.kind !== 'r' && dbTable.kind !== 'p') {
      differences.push(`${table}: is a ${RELKINDS[dbTable.kind] ?? dbTable.kind} in the database, not a table`);
      continue;
    }

    // Columns: one per scalar or enum field; relation fields have no column.
    const dbColumns = new Map(db.columns.filter((column) => column.table === table).map((column) => [column.name, column]));
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      const column = columnOf(field);
      const at = `${table}.${column}`;
      const actual = dbColumns.get(column);
      dbColumns.delete(column);
      if (!actual) {
        differences.push(`${at}: column missing from the database (schema: ${model.name}.${field.name} ${field.type}${field.isList ? '[]' : field.isRequired ? '' : '?'})`);
        continue;
      }
      // Unsupported("type"): the type as written; a list: its element's type with [].
      const element = field.kind === 'unsupported' ? { type: field.type } : expectedType(field, enumNames);
      const expected = field.isList && 'type' in element ? { type: `${element.type}[]` } : element;
      if ('unsupported' in expected) {
        differences.push(`${at}: checker does not support ${expected.unsupported}; extend test/support/schema-drift.ts`);
      } else if (expected.type !== actual.type) {
        differences.push(`${at}: type differs (schema: ${expected.type}, database: ${actual.type})`);
      }
      if (field.isRequired !== actual.notNull) {
        const nullability = (notNull: boolean) => (notNull ? 'NOT NULL' : 'NULL');
        differences.push(`${at}: nullability differs (schema: ${nullability(field.isRequired)}, database: ${nullability(actual.notNull)})`);
      }
      // Identity and generated columns have no pg_attrdef default, so say so
      // plainly rather than reporting a missing default.
      if (actual.identity !== '') differences.push(`${at}: is an identity column in the database; Prisma's autoincrement() is a serial`);
      if (actual.generated !== '') {
        // A stored generated column (Postgres computes it; nothing writes it)
        // is declared as @default(dbgenerated("<its expression>")): Prisma
        // then leaves it to the database, and its expression is checked here.
        const declared = field.default;
        const expression = declared && typeof declared === 'object' && !Array.isArray(declared) && declared.name === 'dbgenerated' ? declared.args[0] : undefined;
        if (typeof expression !== 'string' || expression.trim() !== (actual.default ?? '').trim()) {
          differences.push(`${at}: is a generated column in the database (${actual.default}); the schema must declare @default(dbgenerated(${JSON.stringify(actual.default)}))`);
        }
      } else {
        const problem = compareDefault(field, actual.default, datamodel.enums);
        if (problem) differences.push(`${at}: ${problem}`);
      }
    }
    for (const extra of dbColumns.values()) {
      differences.push(`${table}.${extra.name}: column in the database is not in the schema (${extra.type}${extra.notNull ? ' NOT NULL' : ''})`);
    }

    // Foreign keys: one per relation field that holds the `fields:` side.
    const dbForeignKeys = db.foreignKeys.filter((fk) => fk.table === table);
    for (const field of model.fields) {
      const fromFields = field.relationFromFields ?? [];
      if (field.kind !== 'object' || fromFields.length === 0) continue;
      const target = modelsByName.get(field.type);
      if (!target) continue;
      const columns = columnsOf(model, fromFields);
      const referencedTable = tableOf(target);
      const referencedColumns = columnsOf(target, field.relationToFields ?? []);
      // Prisma's defaults when the schema names no action. The FK name cannot
      // be read from the DMMF (it drops @relation(map:)), so this assumes
      // Prisma's default name.
      const onDelete = field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull');
      const onUpdate = field.relationOnUpdate ?? 'Cascade';
      const name = foreignKeyName(table, columns);
      const description = `foreign key ${name} ${list(columns)} -> ${referencedTable}${list(referencedColumns)}`;
      const index = dbForeignKeys.findIndex((fk) => sameList(fk.columns, columns));
      if (index === -1) {
        differences.push(`${table}: ${description} (${model.name}.${field.name}) missing from the database`);
        continue;
      }
      const [actual] = dbForeignKeys.splice(index, 1);
      if (!actual) continue;
      if (actual.name !== name) differences.push(`${table}: ${description} is named ${actual.name} in the database`);
      if (actual.referencedTable !== referencedTable || !sameList(actual.referencedColumns, referencedColumns)) {
        differences.push(`${table}: ${description} references ${actual.referencedTable}${list(actual.referencedColumns)} in the database`);
      }
      const actualOnDelete = ACTIONS[actual.onDelete] ?? actual.onDelete;
      if (actualOnDelete !== onDelete) differences.push(`${table}: ${description} ON DELETE differs (schema: ${onDelete}, database: ${actualOnDelete})`);
      const actualOnUpdate = ACTIONS[actual.onUpdate] ?? actual.onUpdate;
      if (actualOnUpdate !== onUpdate) differences.push(`${table}: ${description} ON UPDATE differs (schema: ${onUpdate}, database: ${actualOnUpdate})`);
    }
    for (const extra of dbForeignKeys) {
      differences.push(`${table}: foreign key ${extra.name} ${list(extra.columns)} -> ${extra.referencedTable}${list(extra.referencedColumns)} in the database is not in the schema`);
    }

    // Indexes: @id/@@id, @unique/@@unique and @@index, with Prisma's default
    // names (<table>_pkey, <table>_<columns>_key, <table>_<columns>_idx).
    for (const index of datamodel.indexes.filter((candidate) => candidate.model === model.name)) {
      const columns = columnsOf(model, index.fields.map((field) => field.name));
      const attribute = index.type === 'id' ? 'id' : index.type === 'unique' ? 'unique' : 'index';
      const source = index.isDefinedOnField
        ? `@${attribute} on ${model.name}.${index.fields[0]?.name}`
        : `@@${attribute}([${index.fields.map((field) => (field.sortOrder === 'desc' ? `${field.name}(sort: Desc)` : field.name)).join(', ')}])`;
      if (index.type === 'fulltext') {
        differences.push(`${table}: checker does not support @@fulltext indexes (${source})`);
        continue;
      }
      const unverifiable = index.fields.find((field) => field.length !== undefined);
      if (unverifiable) differences.push(`${table}: checker does not support index lengths (${source})`);
      expectedIndexes.push({
        table,
        name:
          index.dbName ??
          (index.type === 'id' ? primaryKeyName(table) : indexName(table, columns, index.type === 'unique' ? '_key' : '_idx')),
        columns,
        descending: index.fields.map((field) => field.sortOrder === 'desc'),
        unique: index.type !== 'normal',
        primary: index.type === 'id',
        method: (index.algorithm ?? 'BTree').toLowerCase(),
        opclasses: index.fields.map((field) => field.operatorClass),
        source,
      });
    }
  }

  for (const extra of dbTables.values()) {
    differences.push(`${RELKINDS[extra.kind] ?? extra.kind} ${extra.name} in the database is not in the schema`);
  }

  // Match indexes by name first. An index with the right shape but the wrong
  // name is reported as misnamed, which reads better than missing + extra.
  const modelTables = new Set(datamodel.models.map(tableOf));
  const dbIndexes = db.indexes.filter((index) => modelTables.has(index.table));
  const unmatched: ExpectedIndex[] = [];
  for (const expected of expectedIndexes) {
    const position = dbIndexes.findIndex((index) => index.table === expected.table && index.name === expected.name);
    if (position === -1) {
      unmatched.push(expected);
      continue;
    }
    const [actual] = dbIndexes.splice(position, 1);
    if (actual) differences.push(...compareIndex(expected, actual));
  }
  for (const expected of unmatched) {
    const position = dbIndexes.findIndex(
      (index) => index.table === expected.table && sameList(index.columns, expected.columns) && index.primary === expected.primary,
    );
    const what = `${expected.primary ? 'primary key' : expected.unique ? 'unique index' : 'index'} ${expected.name} on ${list(expected.columns)} (${expected.source})`;
    if (position === -1) {
      differences.push(`${expected.table}: ${what} missing from the database`);
      continue;
    }
    const [actual] = dbIndexes.splice(position, 1);
    if (!actual) continue;
    differences.push(`${expected.table}: ${what} is named ${actual.name} in the database`);
    differences.push(...compareIndex(expected, actual));
  }
  for (const extra of dbIndexes) {
    const kind = extra.primary ? 'primary key' : extra.unique ? 'unique index' : 'index';
    differences.push(`${extra.table}: ${kind} ${extra.name} on ${list(extra.columns)} in the database is not in the schema`);
  }

  for (const extra of db.otherConstraints) {
    const kind = extra.kind === 'c' ? 'check constraint' : 'exclusion constraint';
    differences.push(`${extra.table}: ${kind} ${extra.name} in the database is not in the schema (${extra.definition})`);
  }

  return differences;
}

function compareIndex(expected: ExpectedIndex, actual: DbIndex): string[] {
  const differences: string[] = [];
  const at = `${expected.table}: index ${expected.name}`;
  const kind = (index: { primary: boolean; unique: boolean }) => (index.primary ? 'primary key' : index.unique ? 'unique' : 'not unique');
  if (!sameList(actual.columns, expected.columns)) differences.push(`${at}: columns differ (schema: ${list(expected.columns)}, database: ${list(actual.columns)})`);
  if (actual.primary !== expected.primary || actual.unique !== expected.unique) {
    differences.push(`${at}: kind differs (schema: ${kind(expected)}, database: ${kind(actual)})`);
  }
  if (actual.method !== expected.method) differences.push(`${at}: method differs (schema: ${expected.method}, database: ${actual.method})`);
  if (!sameList(actual.descending, expected.descending)) {
    const order = (descending: boolean[]) => descending.map((desc) => (desc ? 'DESC' : 'ASC')).join(', ');
    differences.push(`${at}: sort order differs (schema: ${order(expected.descending)}, database: ${order(actual.descending)})`);
  }
  expected.opclasses.forEach((named, i) => {
    const opclass = actual.opclasses[i];
    if (named !== undefined ? opclass !== named : actual.defaultOpclasses[i] === false) {
      differences.push(`${at}: operator class of ${expected.columns[i]} differs (schema: ${named ?? 'the default'}, database: ${opclass})`);
    }
  });
  if (actual.partial) differences.push(`${at}: is partial (WHERE ...) in the database, which the schema cannot declare`);
  if (actual.includesColumns) differences.push(`${at}: has INCLUDE columns in the database, which the schema cannot declare`);
  return differences;
}

/** Connects to a database and lists how it differs from the Prisma schema. */
export async function findSchemaDrift(databaseUrl: string, schemaPath = SCHEMA_PATH): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return compareSchema(loadDatamodel(schemaPath), await introspect(client));
  } finally {
    await client.end();
  }
}
