// The counts of a search (totalCount and facets), collected in one
// statement as Lucene's and Tantivy's facet collectors do over a query's
// matches: every facet over the search's matches and every other part of
// the filter, up to COUNT_EXACT_UP_TO matches a set; or, when the kept
// counts apply (kept-counts.ts), from those, with the matches' counts as
// the branch that runs when no kept lexeme is there.
import type { BrowseFilter } from '../../catalog/browse/browse-input.ts';
import { type BrowseStatement, conditions, facetParts, type FilterPart, named, Parameters, PRICE_BANDS, whereClause } from '../../catalog/browse/browse-statements.ts';
import type { Resolved } from '../dictionary/resolved.ts';
import { keptCountsApply, keptFacets } from './kept-counts.ts';

/**
 * Search counts (totalCount, facets) are exact up to this many matches;
 * past it they count the first COUNT_EXACT_UP_TO matches found, a lower
 * bound of every figure, and say so (exact: false; "at least").
 */
export const COUNT_EXACT_UP_TO = 10_000;

/**
 * The counts of a search (totalCount and facets): every facet counted over
 * the matches of the search and every other part of the filter (so a
 * chosen category still shows the others' counts), the total over all of
 * it. Each distinct set of matches is read once, up to COUNT_EXACT_UP_TO +
 * 1 of them: at most COUNT_EXACT_UP_TO, the counts are exact; past it, they
 * count the first COUNT_EXACT_UP_TO found, lower bounds of the truth, and
 * the 'exact' row says 0. Rows: facet, value, count.
 */
export function searchFacetsStatement(filter: BrowseFilter, searched: Resolved): BrowseStatement {
  const params = new Parameters();
  const query = params.add(searched.query, 'tsquery');
  const bands = params.add(PRICE_BANDS.slice(1), 'numeric[]');
  const cap = params.add(COUNT_EXACT_UP_TO, 'int');
  // The matches each count reads: all of the filter but the parts it counts across, each distinct set once.
  const reads = new Map<string, { name: string; where: string[] }>();
  const from = (except: FilterPart[]) => {
    const applied = (Object.keys(filter) as FilterPart[]).filter((part) => filter[part] !== undefined && !except.includes(part)).sort().join(',');
    let set = reads.get(applied);
    if (!set) {
      set = { name: `m${reads.size}`, where: [`b.document @@ ${query}`, ...conditions(filter, params, except)] };
      reads.set(applied, set);
    }
    return set.name;
  };
  const count = (except: FilterPart[], select: string, group: string) =>
    `SELECT ${select}, count(*) AS count FROM (SELECT * FROM ${from(except)} LIMIT ${cap}) b${group ? ` GROUP BY ${group}` : ''}`;
  const sizeSet = from(['sizes']);
  // Matches grouped by their set of sizes first: a few hundred sets to unnest, not every match's sizes.
  const sizes = `SELECT 'size', size, sum(g.n)::bigint FROM (SELECT b.sizes, count(*) AS n FROM (SELECT * FROM ${sizeSet} LIMIT ${cap}) b GROUP BY b.sizes) g
    CROSS JOIN unnest(g.sizes) AS size GROUP BY size`;
  const parts = facetParts(count, sizes, bands);
  const ctes = [...reads.values()].map(({ name, where }) =>
    `${name} AS MATERIALIZED (SELECT b.category, b.price, b.sizes FROM product_browse b ${whereClause(where)} LIMIT ${cap} + 1)`);
  const counted = `${parts}
    UNION ALL
    SELECT 'exact', NULL, CASE WHEN ${[...reads.values()].map(({ name }) => `(SELECT count(*) FROM ${name}) <= ${cap}`).join(' AND ')} THEN 1 ELSE 0 END`;
  const unfiltered = (Object.keys(filter) as FilterPart[]).every((part) => filter[part] === undefined);
  if (keptCountsApply(searched, unfiltered)) {
    return named('browse_kept_facets', `WITH ${ctes.join(',\n    ')},${keptFacets(searched, query, params, bands, cap, counted)}`, params.values);
  }
  return named('browse_search_facets', `WITH ${ctes.join(',\n    ')}\n    ${counted}`, params.values);
}
