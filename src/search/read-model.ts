// The search index: what the engine builds and keeps beside the browse rows
// (product_browse, whose tier columns, pairs, name_key and search_order
// the ranking rules read: ranking/*.ts name them and their SQL). The tables
// are created by the baseline migration, kept by the triggers of
// prisma/functions/ in every writing transaction, and rebuilt by a load
// (src/etl/load/load.ts runs the builds below on its staging schema).

/** The runs of search_order (about 4,096 products each) the bucket sort reads a level by: built before the browse rows, which look theirs up. */
export const SEARCH_RUNS_TABLE = 'search_buckets';

/**
 * The dictionary and the counts kept whole, built from the browse rows:
 * search_lexemes (every lexeme, with how many documents hold it: built by
 * the browse aggregates, rebuild_browse_aggregates.sql), search_name_pairs
 * (every two words of a name), search_word_facets (the facet counts of
 * common words and pairs: facets/kept-counts.ts).
 */
export const SEARCH_DICTIONARY_TABLES = ['search_lexemes', 'search_name_pairs', 'search_word_facets'] as const;

/** A build of the search index in a load: a statement over the staging schema's tables. */
export interface SearchBuild {
  name: string;
  /** The load's progress line it counts under. */
  kind: string;
  sql: string;
}

/** The statement that runs `call` with the staging schema first on the search path (the functions name their tables without one). */
const inSchema = (schema: string, call: string, workMem?: string) =>
  `SET LOCAL search_path = ${schema};${workMem ? ` SET LOCAL work_mem = '${workMem}';` : ''} SELECT public.${call}`;

/**
 * The search index's builds, by when a load runs them: `runs` before the
 * browse rows (after products and related are analyzed); `namePairs` and
 * `wordCounts` after the browse rows (each one pass over them, beside the
 * browse aggregates); `pairCounts` after the word counts, the aggregates'
 * dictionary and the `document` GIN index (it reads the pairs' holders
 * through it).
 */
export function searchBuilds(schema: string): Record<'runs' | 'namePairs' | 'wordCounts' | 'pairCounts', SearchBuild> {
  return {
    runs: { name: `${SEARCH_RUNS_TABLE}:rows`, kind: 'search order', sql: inSchema(schema, 'rebuild_search_buckets()') },
    namePairs: { name: 'search_name_pairs:rows', kind: 'browse aggregates', sql: inSchema(schema, 'rebuild_search_name_pairs()') },
    wordCounts: { name: 'search_word_facets:rows', kind: 'word counts', sql: inSchema(schema, 'rebuild_search_word_facets()', '256MB') },
    pairCounts: { name: 'search_word_facets:rows of pairs', kind: 'word counts', sql: inSchema(schema, 'rebuild_search_pair_facets()', '256MB') },
  };
}
