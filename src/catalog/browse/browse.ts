// Browse pages, searches and facets: one statement each (browse-statements.ts),
// on whichever server the reads are routed to, within the process's limit on
// expensive reads (expensive-reads.ts). A page reads one row more than it
// shows, to tell whether another page follows.
import type pg from 'pg';
import type { Reads } from '../../db/reads/read-routes.ts';
import { ExpensiveReadRefused, type ExpensiveReads } from './expensive-reads.ts';
import { decodeCursor, encodeCursor, type Ordering, orderingOf, type Position } from './browse-cursor.ts';
import type { BrowseFilter, BrowseOrder } from './browse-input.ts';
import { type BrowseStatement, facetsStatement, type PageExtras, pageStatement, PRICE_BANDS } from './browse-statements.ts';
import type { ResolutionMemo } from '../../search/dictionary/resolution-memo.ts';
import { resolveStatement } from '../../search/dictionary/resolve.ts';
import { type Resolved, resolvedOf } from '../../search/dictionary/resolved.ts';
import { parseSearchKey, searchStatement } from '../../search/bucket-sort.ts';
import { searchFacetsStatement } from '../../search/facets/search-facets.ts';
import { rankOf } from '../../search/ranking/rules.ts';
import type { Product } from '../model/types.ts';

export interface Edge {
  cursor: string;
  node: Product;
}

export interface Page<E extends Edge = Edge> {
  edges: E[];
  hasNextPage: boolean;
}

export interface SearchEdge extends Edge {
  rank: number;
  snippet: string | null;
}

export interface SearchPage extends Page<SearchEdge> {
  /** The query as searched (Postgres tsquery text, after stemming and typo correction); null when only stop words were given. */
  searched: string | null;
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface PriceBandCount {
  min: string;
  max: string | null;
  count: number;
}

export interface Facets {
  total: number;
  categories: FacetCount[];
  sizes: FacetCount[];
  priceBands: PriceBandCount[];
  /** False when the counts are lower bounds: a search with more matches than COUNT_EXACT_UP_TO (src/search/facets/search-facets.ts). */
  exact: boolean;
}

type Row = Product & { sortKey: string | null };

const byCountThenValue = (a: FacetCount, b: FacetCount) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

export class CatalogBrowse {
  private readonly reads: Reads;
  private readonly memo: ResolutionMemo | undefined;
  private readonly expensive: ExpensiveReads | undefined;
  /** Set in a request's view (forRequest) once one of its statements was refused. */
  private refused: ExpensiveReadRefused | undefined;
  private readonly remembersRefusal: boolean;

  /**
   * `memo`: recent searches' resolutions (none: every search resolves its
   * words in the database); `expensive`: the process's limit every statement
   * here runs within (none: no limit).
   */
  constructor(reads: Reads, memo?: ResolutionMemo, expensive?: ExpensiveReads, remembersRefusal = false) {
    this.reads = reads;
    this.memo = memo;
    this.expensive = expensive;
    this.remembersRefusal = remembersRefusal;
  }

  /**
   * The same browse for one request: once the limit refused one of its
   * statements, its others are refused at once rather than waiting again
   * (a GraphQL result with errors is run again by Apollo: fast-path.ts).
   */
  forRequest(): CatalogBrowse {
    return new CatalogBrowse(this.reads, this.memo, this.expensive, true);
  }

  private async run<T extends pg.QueryResultRow>(statement: BrowseStatement): Promise<T[]> {
    if (this.refused) throw this.refused;
    const route = await this.reads.route();
    const read = () => route.run(async (client) => (await client.query<T>(statement)).rows);
    if (!this.expensive) return read();
    try {
      return await this.expensive.run(read);
    } catch (error) {
      if (this.remembersRefusal && error instanceof ExpensiveReadRefused) this.refused = error;
      throw error;
    }
  }

  private static edges<R extends Row>(rows: R[], first: number, ordering: Ordering): { page: R[]; edges: (Edge & { row: R })[]; hasNextPage: boolean } {
    const page = rows.slice(0, first);
    return {
      page,
      hasNextPage: rows.length > first,
      edges: page.map((row) => {
        const { sortKey, ...node } = row;
        return { row, node: node as Product, cursor: encodeCursor(ordering, { key: sortKey, id: row.id }) };
      }),
    };
  }

  /** `first` products matching `filter` in `order`, after the cursor `after` (with their style documents when `extras.styles`). */
  async page(filter: BrowseFilter, order: BrowseOrder, first: number, after: string | undefined, extras: PageExtras = {}): Promise<Page> {
    const ordering = orderingOf(order);
    const position: Position | undefined = after === undefined ? undefined : decodeCursor(after, ordering);
    const rows = await this.run<Row>(pageStatement(filter, order, position, first + 1, extras));
    const { edges, hasNextPage } = CatalogBrowse.edges(rows, first, ordering);
    return { edges: edges.map(({ cursor, node }) => ({ cursor, node })), hasNextPage };
  }

  /**
   * The tsquery the words stand for (stemmed, typos corrected: resolveStatement);
   * null when they are all stop words. From the memo when it knows them (no statement).
   */
  async resolve(words: readonly string[]): Promise<Resolved | null> {
    const recall = this.memo?.recall(words);
    if (recall?.found) return recall.resolved;
    const [row] = await this.run<Parameters<typeof resolvedOf>[0] & pg.QueryResultRow>(resolveStatement(words));
    const resolved = resolvedOf(row);
    recall?.keep(resolved, 2 * ((row?.searched?.length ?? 0) + JSON.stringify(row?.words ?? null).length));
    return resolved;
  }

  /** `first` matches of the resolved query (and `filter`) by rank, after the cursor `after`. */
  async search(searched: Resolved | null, filter: BrowseFilter, first: number, after: string | undefined, extras: PageExtras = {}): Promise<SearchPage> {
    const position = after === undefined ? undefined : decodeCursor(after, 'SEARCH');
    if (searched === null) return { searched: null, edges: [], hasNextPage: false };
    const rows = await this.run<Row & { snippet: string | null }>(searchStatement(searched, filter, position, first + 1, extras));
    const { edges, hasNextPage } = CatalogBrowse.edges(rows, first, 'SEARCH');
    return {
      searched: searched.query,
      hasNextPage,
      edges: edges.map(({ cursor, row }) => {
        const { sortKey, snippet, ...node } = row;
        return { cursor, node: node as Product, rank: rankOf(parseSearchKey(sortKey!).level), snippet };
      }),
    };
  }

  /**
   * Counts per category, size in stock and price band, and the total, for a
   * filter (and a resolved search query: null, only stop words, matches nothing).
   */
  async facets(filter: BrowseFilter, searched?: Resolved | null): Promise<Facets> {
    const facets: Facets = { total: 0, categories: [], sizes: [], priceBands: [], exact: true };
    const rows = searched === null ? [] : (await this.run<{ facet: string; value: string | null; count: string }>(searched === undefined ? facetsStatement(filter) : searchFacetsStatement(filter, searched)))
      .map((row) => ({ ...row, count: Number(row.count) }));
    const bands = PRICE_BANDS.map((min, i) => ({ min, max: PRICE_BANDS[i + 1] ?? null, count: 0 }));
    for (const row of rows) {
      if (row.facet === 'total') facets.total = row.count;
      else if (row.facet === 'exact') facets.exact = row.count === 1;
      else if (row.facet === 'category') facets.categories.push({ value: row.value as string, count: row.count });
      else if (row.facet === 'size') facets.sizes.push({ value: row.value as string, count: row.count });
      else {
        const band = bands[Number(row.value)];
        if (band) band.count = row.count;
      }
    }
    facets.categories.sort(byCountThenValue);
    facets.sizes.sort(byCountThenValue);
    facets.priceBands = bands;
    return facets;
  }
}
