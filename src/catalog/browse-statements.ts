// The SQL of browse pages, searches and facets, built from the request's
// shape: which filters it has, the ordering, a cursor or not. Values are
// always parameters; only the shape is text, so each shape is one named
// prepared statement per connection (a few hundred shapes at most), planned
// once for the shape's own predicates rather than for a catch-all
// `($1 IS NULL OR ...)` that no index serves. Everything reads the browse
// read model (product_browse, browse_facet_cells, search_lexemes: see the
// migration 20261125100000_browse and docs/browse.md).
import { createHash } from 'node:crypto';
import type { BrowseFilter, BrowseOrder } from './browse-input.ts';
import type { Position } from './browse-cursor.ts';
import { productColumns } from './queries.ts';

/** A statement ready to run: a name derived from its text, the text, the values. */
export interface BrowseStatement {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * Lower bounds of the price bands the facets count, in currency units: a
 * band runs from its bound up to the next one (the last is open-ended).
 */
export const PRICE_BANDS = ['0.00', '25.00', '50.00', '100.00', '200.00', '500.00'] as const;

/**
 * Field weights of the search (the product_search_documents function of the
 * migration sets them on the documents): A name, B category, C slogan and
 * feature values, D description. A match's rank is the weight of the most
 * important field it needs (SEARCH_TIERS). The values are Postgres's
 * ts_rank defaults, kept so a client can compare with ts_rank.
 */
export const SEARCH_WEIGHTS = { A: 1.0, B: 0.4, C: 0.2, D: 0.1 } as const;

/** Collects parameters: each value once, as `$n`. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

function named(prefix: string, text: string, values: unknown[]): BrowseStatement {
  return { name: `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text, values };
}

type FilterPart = keyof BrowseFilter;

/** The filter's conditions on product_browse (alias b), leaving out the parts in `except` (facets). */
function conditions(filter: BrowseFilter, params: Parameters, except: readonly FilterPart[] = []): string[] {
  const where: string[] = [];
  const wanted = (part: FilterPart) => filter[part] !== undefined && !except.includes(part);
  if (wanted('categories')) where.push(`b.category = ANY(${params.add(filter.categories, 'text[]')})`);
  if (wanted('priceMin')) where.push(`b.price >= ${params.add(filter.priceMin, 'numeric')}`);
  if (wanted('priceMax')) where.push(`b.price <= ${params.add(filter.priceMax, 'numeric')}`);
  if (wanted('onSale')) where.push(filter.onSale ? 'b.on_sale' : 'NOT b.on_sale');
  if (wanted('inStock')) where.push(filter.inStock ? `b.sizes <> '{}'` : `b.sizes = '{}'`);
  if (wanted('sizes')) where.push(`b.sizes && ${params.add(filter.sizes, 'text[]')}`);
  return where;
}

const whereClause = (parts: string[]) => (parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`);

/** Each ordering's column on product_browse, its type, and how its key is printed into cursors. */
const SORT_KEYS: Record<Exclude<BrowseOrder['field'], 'ID'>, { column: string; type: string; text: string }> = {
  NAME: { column: 'b.name', type: 'text', text: 'b.name' },
  PRICE: { column: 'b.price', type: 'numeric', text: 'b.price::text' },
  CREATED_AT: { column: 'b.created_at', type: 'timestamptz', text: `to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` },
  UPDATED_AT: { column: 'b.updated_at', type: 'timestamptz', text: `to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` },
};

/**
 * A keyset page of products matching `filter` in `order` (ties by id, in the
 * same direction), after `after`, `limit` rows: the products' columns and
 * each row's sort key as text (for its cursor).
 */
export function pageStatement(filter: BrowseFilter, order: BrowseOrder, after: Position | undefined, limit: number): BrowseStatement {
  const params = new Parameters();
  const where = conditions(filter, params);
  const direction = order.direction === 'ASC' ? 'ASC' : 'DESC';
  const comparison = order.direction === 'ASC' ? '>' : '<';
  let keyText = 'NULL::text';
  let orderBy = `b.product_id ${direction}`;
  if (order.field === 'ID') {
    if (after) where.push(`b.product_id ${comparison} ${params.add(after.id, 'int')}`);
  } else {
    const key = SORT_KEYS[order.field];
    keyText = key.text;
    orderBy = `${key.column} ${direction}, b.product_id ${direction}`;
    if (after) where.push(`(${key.column}, b.product_id) ${comparison} (${params.add(after.key, key.type)}, ${params.add(after.id, 'int')})`);
  }
  const text = `
    SELECT ${productColumns('p.')}, ${keyText} AS "sortKey"
    FROM product_browse b JOIN products p ON p.id = b.product_id
    ${whereClause(where)}
    ORDER BY ${orderBy}
    LIMIT ${params.add(limit, 'int')}`;
  return named('browse_page', text, params.values);
}

/**
 * The search's tsquery, built from the request's words (letters and digits
 * only, checked before): each word stemmed as the documents were
 * (english); a stem the documents have is searched as it is; the last word
 * also as a prefix (as you type); a stem no document has is replaced by the
 * most similar lexeme of the documents (pg_trgm similarity at least
 * TYPO_SIMILARITY), or left as it is (it then matches nothing). Stop words
 * are dropped. All words must match. Returns the tsquery's text (null: only
 * stop words), which the search and facet statements then take as a parameter.
 */
export const TYPO_SIMILARITY = 0.2;

/**
 * How many products in id order a search tier reads before it asks its GIN
 * index instead (see searchStatement): a tier holding at least 21 in 5,000
 * (0.4%) fills a page from the first window; a sparser one has at most 0.4%
 * of the catalogue to sort (4,000 rows at full scale). Either way a page
 * reads at most about 5,000 rows per tier, whatever the words and their
 * correlation.
 */
export const SEARCH_WINDOW = 5000;

export function resolveStatement(words: readonly string[]): BrowseStatement {
  const text = `
    WITH words AS (
      SELECT n, n = cardinality($1::text[]) AS last, (tsvector_to_array(to_tsvector('english', w)))[1] AS stem
      FROM unnest($1::text[]) WITH ORDINALITY AS t(w, n)
    ), terms AS (
      SELECT n, resolved.lexeme, resolved.prefix FROM words, LATERAL (SELECT * FROM (VALUES
        (CASE
          WHEN EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme = stem) THEN stem
          WHEN last AND EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme > stem AND l.lexeme < stem || chr(1114111) AND starts_with(l.lexeme, stem)) THEN stem
          ELSE coalesce((SELECT near.lexeme FROM (SELECT l.lexeme FROM search_lexemes l ORDER BY l.lexeme <-> stem, l.lexeme LIMIT 1) near
                         WHERE similarity(near.lexeme, stem) >= ${TYPO_SIMILARITY}), stem)
        END,
        last AND (EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme = stem)
          OR EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme > stem AND l.lexeme < stem || chr(1114111) AND starts_with(l.lexeme, stem))))
      ) v(lexeme, prefix)) resolved
      WHERE stem IS NOT NULL
    )
    SELECT to_tsquery('simple', string_agg(lexeme || CASE WHEN prefix THEN ':*' ELSE '' END, ' & ' ORDER BY n))::text AS searched
    FROM terms`;
  return named('browse_resolve', text, [words]);
}

/** A search's words as resolved: the tsquery's text. */
export interface Resolved {
  query: string;
}

/**
 * Rank tiers, best first: the smallest set of fields holding every word
 * (product_browse's match_* columns), and the rank each stands for (its
 * field weight). Within a tier, products are in id order.
 */
export const SEARCH_TIERS = [
  { column: 'match_a', rank: SEARCH_WEIGHTS.A },
  { column: 'match_ab', rank: SEARCH_WEIGHTS.B },
  { column: 'match_abc', rank: SEARCH_WEIGHTS.C },
  { column: 'document', rank: SEARCH_WEIGHTS.D },
] as const;

/** What a snippet is cut from: every searched field, in weight order. */
const SNIPPET_SOURCE = `concat_ws(' · ', p.name, p.category, p.slogan,
  (SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id), p.description)`;
/** ts_headline options: one fragment of about 6-18 words, matches between « and ». */
export const SNIPPET_MARKS = { start: '«', stop: '»' } as const;
const SNIPPET_OPTIONS = `StartSel=${SNIPPET_MARKS.start}, StopSel=${SNIPPET_MARKS.stop}, MaxWords=18, MinWords=6, MaxFragments=1`;

/**
 * A page of search results for the tsquery `searched` (resolveStatement's
 * answer) and `filter`: tier by tier, each in id order, after `after` (tier
 * and id); `limit` rows: the product's columns, its tier as the sort key and,
 * when asked for, the snippet. Each tier reads at most SEARCH_WINDOW
 * products in id order, or, when its words are rarer than that, its GIN
 * index past them; it stops at `limit` rows, and later tiers run only while
 * the page is not full.
 */
export function searchStatement(searched: Resolved, filter: BrowseFilter, after: Position | undefined, limit: number, snippets: boolean): BrowseStatement {
  const params = new Parameters();
  const query = params.add(searched.query, 'tsquery');
  const filters = conditions(filter, params);
  const size = params.add(limit, 'int');
  const afterTier = after ? Number(after.key) : 0;
  const window = params.add(SEARCH_WINDOW, 'int');
  const tiers = SEARCH_TIERS.flatMap((tier, t) => {
    if (t < afterTier) return [];
    const where = [`b.${tier.column} @@ ${query}`, ...(t > 0 ? [`NOT b.${SEARCH_TIERS[t - 1]!.column} @@ ${query}`] : []), ...filters];
    const from = after && t === afterTier ? params.add(after.id, 'int') : '0';
    // The tier's first `limit` matches in id order after `from`: among the
    // next SEARCH_WINDOW products (a LIMIT subquery, so they are read in
    // primary key order whatever the planner guesses), and only if those hold
    // fewer, from the GIN index past the window (`+ 0`: neither the order
    // nor the range from the primary key, so the planner takes the GIN index
    // alone; ANDed with a bitmap of the primary key past the window, it took
    // 305 ms building that bitmap).
    return [`(SELECT ${t} AS tier, product_id FROM (
        WITH w AS MATERIALIZED (SELECT max(product_id) AS last FROM (
          SELECT product_id FROM product_browse WHERE product_id > ${from} ORDER BY product_id LIMIT ${window}) ids),
        near AS MATERIALIZED (SELECT b.product_id FROM (
          SELECT * FROM product_browse WHERE product_id > ${from} ORDER BY product_id LIMIT ${window}) b ${whereClause(where)} ORDER BY b.product_id LIMIT ${size})
        SELECT product_id FROM near
        UNION ALL
        (SELECT b.product_id FROM product_browse b, w ${whereClause([...where, 'b.product_id + 0 > w.last', `(SELECT count(*) FROM near) < ${size}`])} ORDER BY b.product_id + 0 LIMIT ${size})
      ) found LIMIT ${size})`];
  });
  const text = `
    WITH hits AS (SELECT * FROM (${tiers.join('\n      UNION ALL ')}) t LIMIT ${size})
    SELECT ${productColumns('p.')}, h.tier::text AS "sortKey",
      ${snippets ? `ts_headline('english', ${SNIPPET_SOURCE}, ${query}, '${SNIPPET_OPTIONS}')` : 'NULL::text'} AS snippet
    FROM hits h JOIN products p ON p.id = h.product_id
    ORDER BY h.tier, h.product_id`;
  return named('browse_search', text, params.values);
}

/** Where a facet count reads: product rows, or one of the two cell tables (the migration). */
type CountSource = 'products' | 'cells' | 'size-cells';

/**
 * Conditions of `filter` (but the parts in `except`) on a count source, and
 * the source that answers them: the facet cells when sizes are not filtered,
 * the size cells for one size, product rows for several (products with any
 * of them: the cells cannot tell overlaps apart) or for a search's matches.
 */
function countFrom(filter: BrowseFilter, params: Parameters, except: readonly FilterPart[], search: string | undefined): { from: string; where: string[] } {
  const sizes = except.includes('sizes') ? undefined : filter.sizes;
  const source: CountSource = search !== undefined || (sizes !== undefined && sizes.length > 1) ? 'products' : sizes ? 'size-cells' : 'cells';
  if (source === 'products') {
    const where = conditions(filter, params, except);
    if (search !== undefined) where.unshift(`b.document @@ ${search}`);
    return { from: 'product_browse b', where };
  }
  const where = conditions(filter, params, [...except, 'inStock', 'sizes']);
  if (source === 'size-cells') {
    where.push(`b.size = ${params.add(sizes![0], 'text')}`);
    // Every product counted here has that size in stock.
    if (filter.inStock === false && !except.includes('inStock')) where.push('false');
    return { from: 'browse_size_cells b', where };
  }
  if (filter.inStock !== undefined && !except.includes('inStock')) where.push(filter.inStock ? 'b.in_stock' : 'NOT b.in_stock');
  return { from: 'browse_facet_cells b', where };
}

/**
 * Facet counts in one statement: per category, per size in stock, per price
 * band, and the total, each counted over what matches every other part of
 * the filter (so a chosen category still shows the others' counts), the
 * total over all of it. Without a search, from the cell tables (a few
 * thousand rows whatever the catalogue's size; product rows only for a
 * filter on several sizes); with a search, over its matches. Rows: facet
 * ('category' | 'size' | 'price' | 'total'), value, count.
 */
export function facetsStatement(filter: BrowseFilter, searched: Resolved | undefined): BrowseStatement {
  const params = new Parameters();
  const search = searched === undefined ? undefined : params.add(searched.query, 'tsquery');
  const bands = params.add(PRICE_BANDS.slice(1), 'numeric[]');
  const count = (except: FilterPart[], select: string, group: string) => {
    const { from, where } = countFrom(filter, params, except, search);
    const n = from === 'product_browse b' ? 'count(*)' : 'sum(b.products)';
    return `SELECT ${select}, ${n}::bigint AS count FROM ${from} ${whereClause(where)}${group ? ` GROUP BY ${group}` : ''}`;
  };
  /** Sizes in stock: from the size cells, or unnested from a search's matches. */
  const sizes = () => {
    if (search !== undefined) {
      const where = [`b.document @@ ${search}`, ...conditions(filter, params, ['sizes'])];
      return `SELECT 'size', size, count(*)::bigint FROM product_browse b CROSS JOIN unnest(b.sizes) AS size ${whereClause(where)} GROUP BY size`;
    }
    const where = conditions(filter, params, ['inStock', 'sizes']);
    if (filter.inStock === false) where.push('false'); // a product without stock has no size in stock
    return `SELECT 'size', b.size, sum(b.products)::bigint FROM browse_size_cells b ${whereClause(where)} GROUP BY b.size`;
  };
  const text = `
    ${count(['categories'], `'category' AS facet, b.category AS value`, 'b.category')}
    UNION ALL
    ${sizes()}
    UNION ALL
    ${count(['priceMin', 'priceMax'], `'price', width_bucket(b.price, ${bands})::text`, '2')}
    UNION ALL
    ${count([], `'total', NULL`, '')}`;
  return named('browse_facets', text, params.values);
}
