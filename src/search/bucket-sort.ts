// The bucket sort: a page of search results, level by level in the ranking
// rules' order (ranking/rules.ts), each level in tie-break order. A level is
// one combination of the rules' classes; the rules say which levels a
// search can have rows in and the conditions that select each
// (ranking/rule.ts), so this file knows no rule by name but the attribute
// rule's tiers, from which snippets are cut.
import type { Position } from '../catalog/browse/browse-cursor.ts';
import type { BrowseFilter } from '../catalog/browse/browse-input.ts';
import { type BrowseStatement, conditions, named, type PageExtras, Parameters, styleColumn, whereClause } from '../catalog/browse/browse-statements.ts';
import { productColumns } from '../catalog/reads/queries.ts';
import type { Resolved } from './dictionary/resolved.ts';
import { querySql } from './matching.ts';
import { FIELD_SQL, SEARCH_TIERS } from './ranking/attribute.ts';
import type { Classes, Conditions, Scope } from './ranking/rule.ts';
import { classesOf, RANK_LEVELS, RANKING_RULES } from './ranking/rules.ts';

// --- Reading a level in tie-break order ---------------------------------

/**
 * A level's next page is looked for run by run (search_buckets: about 4,096
 * products each, in tie-break order) through the tier's GIN index: first
 * SEARCH_BUCKETS runs. A run's scan is cheap (its rows lie together in the
 * table), but an empty or sparse level is best proven by one scan of every
 * match past the runs; a common level fills a page in its first run.
 */
export const SEARCH_BUCKETS = 2;
/**
 * When the first runs found the level dense enough to fill the page within
 * this many runs (SEARCH_BUCKETS * page <= SEARCH_RUNS_AT_MOST * found), it
 * is read on run by run, up to this many, before every match past them: a
 * level of a thousand or two matches spread over every run fills a page in
 * a few more runs, where reading every match past two runs read them all,
 * one heap page each, and sorted them.
 */
export const SEARCH_RUNS_AT_MOST = 16;

/** One level of a search's results: its classes, and the rows of product_browse (alias b) in it. */
interface Level {
  level: number;
  classes: Classes;
  /** Conditions its tier's GIN index answers, one a word (GIN skips through them together). */
  index: string[];
  /** Conditions past the index (earlier levels' rows left out, the user's filter). */
  filters: string[];
  /** The whole-name level's condition on name_key: read by its btree, every row, sorted. */
  wholeName: string | null;
}

/** A level's scope once every rule admitted its class (in the rules' order, each narrowing it for the next); null: no row can be in it. */
function admitted(level: Scope): Scope | null {
  let scope = level;
  for (const rule of RANKING_RULES) {
    const cls = scope.classes[rule.name]!;
    if (!rule.admits(cls, scope)) return null;
    scope = { ...scope, ...rule.narrow?.(cls, scope) };
  }
  return scope;
}

/**
 * The levels a search's results can be in, from `fromLevel` on, best first,
 * each as the conditions its rules' classes add (in the rules' order).
 */
export function levelsOf(resolved: Resolved, params: Parameters, filters: string[], fromLevel = 0): Level[] {
  const sql = querySql(resolved, params);
  const start = { resolved, sql, hasPairs: resolved.searched.pairs.length > 0, words: resolved.searched, wordsSql: sql.searched, column: 'document', terms: sql.searched.terms } as const;
  const levels: Level[] = [];
  for (let level = 0; level < RANK_LEVELS; level++) {
    if (level < fromLevel) continue;
    const classes = classesOf(level);
    const scope = admitted({ ...start, classes });
    if (scope === null) continue;
    const parts: Conditions[] = RANKING_RULES.map((rule) => rule.select(classes[rule.name]!, scope));
    const where = parts.flatMap((p) => p.where ?? []);
    const wholeName = parts.find((p) => p.wholeName !== undefined)?.wholeName ?? null;
    levels.push({ level, classes, index: parts.flatMap((p) => p.index ?? []), filters: [...where, ...filters], wholeName });
  }
  return levels;
}

/**
 * Snippets are cut from the fields of the result's tier, in weight order: a
 * name match shows the name, not a fragment of its description (cut from
 * every field, ts_headline parsed whole descriptions for every result).
 */
const snippetSource = (levels: readonly Level[]) => `CASE h.level ${levels.map((l) =>
  `WHEN ${l.level} THEN concat_ws(' · ', ${SEARCH_TIERS[l.classes.attribute!]!.fields.map((f) => FIELD_SQL[f]).join(', ')})`).join(' ')} END`;
/** ts_headline options: one fragment of about 6-18 words, matches between « and ». */
export const SNIPPET_MARKS = { start: '«', stop: '»' } as const;
const SNIPPET_OPTIONS = `StartSel=${SNIPPET_MARKS.start}, StopSel=${SNIPPET_MARKS.stop}, MaxWords=18, MinWords=6, MaxFragments=1`;

/** A search cursor's key: the level, the run and the search_order of the last row. */
export const searchKey = (level: number, bucket: number, order: string) => `${level}.${bucket}.${order}`;
export function parseSearchKey(key: string): { level: number; bucket: number; order: string } {
  const [level, bucket, order] = key.split('.');
  return { level: Number(level), bucket: Number(bucket), order: order! };
}

/**
 * A page of search results for `searched` and `filter`, in the ranking
 * rules' order (ranking/rules.ts): level by level, each in tie-break order
 * (search_order), after `after`; `limit` rows: the product's columns, its
 * level, run and search_order as the sort key, and `extras`. The whole-name
 * level is read by name_key; every other level reads its tier's index run by
 * run (search_bucket), then past the runs; it stops at `limit` rows, and
 * later stages and levels run only while the page is not full.
 */
export function searchStatement(searched: Resolved, filter: BrowseFilter, after: Position | undefined, limit: number, extras: PageExtras = {}): BrowseStatement {
  const params = new Parameters();
  const filters = conditions(filter, params);
  const cursor = after?.key ? parseSearchKey(after.key) : undefined;
  const levels = levelsOf(searched, params, filters, cursor?.level);
  const size = params.add(limit, 'int');
  const parts = levels.flatMap((level) => {
    const at = cursor && level.level === cursor.level ? cursor : undefined;
    const from = at ? params.add(at.order, 'bigint') : '-1::bigint';
    const select = `SELECT ${level.level} AS level, b.search_bucket AS bucket, b.search_order, b.product_id`;
    if (level.wholeName) {
      // The name's products by the name_key btree (OFFSET 0: alone), the words checked after: with
      // them beside it, the generic plan read every name holding the words through the GIN index.
      return [`(${select} FROM (SELECT * FROM product_browse b WHERE ${level.wholeName} OFFSET 0) b
        ${whereClause([...level.index, ...level.filters, `b.search_order > ${from}`])} ORDER BY b.search_order LIMIT ${size})`];
    }
    const firstBucket = params.add(at?.bucket ?? 0, 'int');
    // Runs in order, one LATERAL read each: the nested loop over
    // generate_series stops at the page's last row. A run's matches are read
    // by its GIN scan alone (OFFSET 0: not flattened) and filtered after:
    // given the filter too, the generic plan ANDed each run's scan with an
    // index of the whole filter, the same entries for every run.
    const runs = (first: string, last: string) => `SELECT x.* FROM generate_series(${first}, ${last}) AS g(bucket), LATERAL (
          SELECT b.search_bucket AS bucket, b.search_order, b.product_id FROM (
            SELECT * FROM product_browse b ${whereClause(['b.search_bucket = g.bucket', ...level.index])} OFFSET 0) b
          ${whereClause([...level.filters, `b.search_order > ${from}`])} ORDER BY b.search_order LIMIT ${size}) x`;
    // More runs only when the first ones found the level dense enough to fill the page within SEARCH_RUNS_AT_MOST.
    const more = `CASE WHEN ${SEARCH_BUCKETS} * ${size} <= ${SEARCH_RUNS_AT_MOST} * count(*) THEN ${SEARCH_RUNS_AT_MOST - SEARCH_BUCKETS} ELSE 0 END`;
    const pastRuns = `${firstBucket} + ${SEARCH_BUCKETS} + (SELECT m.runs FROM more_runs m)`;
    // Past the runs: every match, sorted (+ 0: not by the search_order index, which would walk every row).
    const past = `(SELECT b.search_bucket AS bucket, b.search_order, b.product_id FROM product_browse b
          ${whereClause([...level.index, ...level.filters, `b.search_order + 0 > ${from}`, `b.search_bucket + 0 >= ${pastRuns}`])} ORDER BY b.search_order + 0 LIMIT ${size})`;
    return [`(WITH first_runs AS MATERIALIZED (${runs(firstBucket, `${firstBucket} + ${SEARCH_BUCKETS - 1}`)}),
        more_runs AS MATERIALIZED (SELECT ${more} AS runs FROM first_runs)
      SELECT ${level.level} AS level, found.* FROM (
        SELECT * FROM first_runs
        UNION ALL
        (${runs(`${firstBucket} + ${SEARCH_BUCKETS}`, `${pastRuns} - 1`)})
        UNION ALL
        ${past}
      ) found LIMIT ${size})`];
  });
  const snippet = extras.snippets && levels.length > 0
    ? `ts_headline('english', ${snippetSource(levels)}, ${params.add(searched.query, 'tsquery')}, '${SNIPPET_OPTIONS}')`
    : 'NULL::text';
  const hits = parts.length > 0 ? parts.join('\n      UNION ALL ') : 'SELECT 0 AS level, 0 AS bucket, 0::bigint AS search_order, 0 AS product_id WHERE false';
  const text = `
    WITH hits AS (SELECT * FROM (${hits}) t LIMIT ${size})
    SELECT ${productColumns('p.')}, h.level || '.' || h.bucket || '.' || h.search_order AS "sortKey", ${snippet} AS snippet${styleColumn(extras)}
    FROM hits h JOIN products p ON p.id = h.product_id
    ORDER BY h.level, h.search_order`;
  return named('browse_search', text, params.values);
}
