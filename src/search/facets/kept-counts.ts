// Counts kept whole for common words (search_word_facets), as Lucene keeps
// per-term statistics: a search of one or two common words alone is counted
// from them rather than from its matches. Which lexemes and pairs are kept
// is decided at every load (prisma/functions/rebuild_search_word_facets.sql,
// rebuild_search_pair_facets.sql) and moved by every write
// (move_search_word_facets.sql).
import type { Parameters } from '../../catalog/browse/browse-statements.ts';
import { type Resolved, tsLexeme } from '../dictionary/resolved.ts';

/** The search's counts can come from the kept counts: it has a lexeme every holder of which matches it, and no filter. */
export const keptCountsApply = (searched: Resolved, unfiltered: boolean) => searched.implying !== null && unfiltered;

/**
 * The counts of a search for one or two words with no other filter
 * (Resolved.implying), from the counts the read model keeps for common
 * lexemes and pairs of words (search_word_facets): those of the commonest
 * kept one of `implying` (exact on their own when the search is just that),
 * plus the other matches of the search (those lacking it):
 *   - while the total stays within COUNT_EXACT_UP_TO: exact if they all
 *     fit, else lower bounds adding up to COUNT_EXACT_UP_TO;
 *   - past it (the kept lexeme alone has more products), a word's other
 *     lexemes' matches when none of them is kept (each is rare: cheap to
 *     read, and the counts stay exact), up to COUNT_EXACT_UP_TO of them;
 *     else none: the kept counts are lower bounds on their own.
 * A word's other matches are found through its other lexemes alone (GIN
 * walks only their posting lists, the kept lexeme is left out row by
 * row); a pair's (a word completed or corrected) are "the search and not
 * both words of the pair", whose GIN scan walks the common words' whole
 * lists however few they are, hence none past the cap. With no lexeme kept, the rows of `otherwise` (the counts from every
 * match). One statement either way: each branch runs only if the kept
 * lexeme is there or not (one-time filters on uncorrelated EXISTS).
 */
export function keptFacets(searched: Resolved, query: string, params: Parameters, bands: string, cap: string, otherwise: string): string {
  const { lexemes, pair, alone } = searched.implying!;
  const implying = params.add(lexemes, 'text[]');
  // The chosen lexeme as a tsquery: a pair 'dress pant' as both its words.
  const chosenTerm = '(SELECT kept_lexeme_query(c.lexeme) FROM chosen c)';
  const others = pair
    ? `b.document @@ (${query} && !! ${chosenTerm})`
    : `b.document @@ (SELECT string_agg(${tsLexeme('x')}, ' | ')::tsquery FROM unnest(${implying}) AS x WHERE x <> (SELECT c.lexeme FROM chosen c))
        AND NOT b.document @@ ${chosenTerm}`;
  const rest = alone
    ? 'SELECT NULL::text AS category, NULL::numeric AS price, NULL::text[] AS sizes WHERE false'
    : `SELECT b.category, b.price, b.sizes FROM product_browse b WHERE ${others} LIMIT (SELECT r.reads FROM budget r)`;
  const some = (from: string) => `(SELECT * FROM ${from} LIMIT (SELECT r.rows FROM budget r))`;
  const ifKept = 'EXISTS (SELECT 1 FROM chosen)';
  // rows: the other matches counted; reads: read (one more, to know whether there were more).
  const budget = pair
    ? `SELECT greatest(${cap} - c.products, 0) AS rows, CASE WHEN c.products > ${cap} THEN 0 ELSE ${cap} - c.products + 1 END AS reads FROM chosen c`
    : `SELECT CASE WHEN c.products <= ${cap} THEN ${cap} - c.products WHEN c.kept = 1 THEN ${cap} ELSE 0 END AS rows,
        CASE WHEN c.products <= ${cap} THEN ${cap} - c.products + 1 WHEN c.kept = 1 THEN ${cap} + 1 ELSE 0 END AS reads FROM chosen c`;
  const exact = alone ? '1' : 'CASE WHEN (SELECT r.reads > 0 AND (SELECT count(*) FROM rest) < r.reads FROM budget r) THEN 1 ELSE 0 END';
  return `
    chosen AS MATERIALIZED (
      -- kept: how many lexemes of implying are kept.
      SELECT w.lexeme, w.products, count(*) OVER () AS kept FROM search_word_facets w
      WHERE w.lexeme = ANY(${implying}) AND w.facet = 'total' AND w.value = ''
      ORDER BY w.products DESC, w.lexeme LIMIT 1
    ), budget AS (
      ${budget}
    ), kept AS MATERIALIZED (
      SELECT w.facet, w.value, w.products FROM search_word_facets w WHERE w.lexeme = (SELECT c.lexeme FROM chosen c)
    ), rest AS MATERIALIZED (
      ${rest}
    )
    SELECT 'category' AS facet, t.value, sum(t.n)::bigint AS count FROM (
      SELECT k.value, k.products AS n FROM kept k WHERE k.facet = 'category'
      UNION ALL SELECT r.category, count(*) FROM ${some('rest')} r GROUP BY r.category) t
    WHERE ${ifKept} GROUP BY t.value HAVING sum(t.n) > 0
    UNION ALL
    SELECT 'size', t.value, sum(t.n)::bigint FROM (
      SELECT k.value, k.products AS n FROM kept k WHERE k.facet = 'size'
      UNION ALL SELECT size, count(*) FROM ${some('rest')} r CROSS JOIN unnest(r.sizes) AS size GROUP BY size) t
    WHERE ${ifKept} GROUP BY t.value HAVING sum(t.n) > 0
    UNION ALL
    SELECT 'price', width_bucket(t.price, ${bands})::text, sum(t.n)::bigint FROM (
      SELECT k.value::numeric AS price, k.products AS n FROM kept k WHERE k.facet = 'price'
      UNION ALL SELECT r.price, 1 FROM ${some('rest')} r) t
    WHERE ${ifKept} GROUP BY 2 HAVING sum(t.n) > 0
    UNION ALL
    SELECT 'total', NULL, (SELECT k.products FROM kept k WHERE k.facet = 'total') + (SELECT count(*) FROM ${some('rest')} r) WHERE ${ifKept}
    UNION ALL
    SELECT 'exact', NULL, ${exact} WHERE ${ifKept}
    UNION ALL
    SELECT * FROM (${otherwise}) counted WHERE NOT ${ifKept}`;
}
