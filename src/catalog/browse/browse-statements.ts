// The SQL of browse pages, searches and facets, built from the request's
// shape: which filters it has, the ordering, a cursor or not. Values are
// always parameters; only the shape is text, so each shape is one named
// prepared statement per connection (a few hundred shapes at most), planned
// once for the shape's own predicates rather than for a catch-all
// `($1 IS NULL OR ...)` that no index serves. Everything reads the browse
// read model (product_browse and the facet cells: see prisma/functions and
// docs/browse.md). Searches: src/search/.
import { createHash } from 'node:crypto';
import type { BrowseFilter, BrowseOrder } from './browse-input.ts';
import type { Position } from './browse-cursor.ts';
import { productColumns } from '../reads/queries.ts';

/**
 * What a page's products carry beyond their columns, when the query shows
 * it: `styles`, each product's style document (styles with photos and skus,
 * as the stylesWithMedia loader reads it), or `defaultStyle`, only the style
 * a card shows (the document's default_style column: Node parses one style a
 * product, not all), so a page of product cards with their default style is
 * one statement, not two; `snippets` (searches).
 */
export interface PageExtras {
  styles?: boolean;
  defaultStyle?: boolean;
  snippets?: boolean;
}

/** The style document column of `extras` for products aliased p (none: nothing). */
export const styleColumn = (extras: PageExtras) => {
  if (extras.styles) return `, coalesce((SELECT d.styles FROM product_style_documents d WHERE d.product_id = p.id), '[]'::json) AS styles`;
  if (extras.defaultStyle) return `, (SELECT d.default_style FROM product_style_documents d WHERE d.product_id = p.id) AS "defaultStyle"`;
  return '';
};

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

/** Collects parameters: each value once, as `$n`. */
export class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

export function named(prefix: string, text: string, values: unknown[]): BrowseStatement {
  return { name: `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text, values };
}

export type FilterPart = keyof BrowseFilter;

/** The filter's conditions on product_browse (alias b), leaving out the parts in `except` (facets). */
export function conditions(filter: BrowseFilter, params: Parameters, except: readonly FilterPart[] = []): string[] {
  const where: string[] = [];
  const wanted = (part: FilterPart) => filter[part] !== undefined && !except.includes(part);
  if (wanted('categories')) {
    // One category (a category page) as `=`: the (category, price) and
    // (category, id) indexes then give the page in order. With `= ANY` of an
    // array parameter the generic plan cannot know it holds one value, so
    // Postgres walks the whole sort-key index, filtering.
    const categories = filter.categories!;
    where.push(categories.length === 1
      ? `b.category = ${params.add(categories[0], 'text')}`
      : `b.category = ANY(${params.add(categories, 'text[]')})`);
  }
  if (wanted('priceMin')) where.push(`b.price >= ${params.add(filter.priceMin, 'numeric')}`);
  if (wanted('priceMax')) where.push(`b.price <= ${params.add(filter.priceMax, 'numeric')}`);
  if (wanted('onSale')) where.push(filter.onSale ? 'b.on_sale' : 'NOT b.on_sale');
  if (wanted('inStock')) where.push(filter.inStock ? `b.sizes <> '{}'` : `b.sizes = '{}'`);
  if (wanted('sizes')) where.push(`b.sizes && ${params.add(filter.sizes, 'text[]')}`);
  return where;
}

export const whereClause = (parts: string[]) => (parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`);

/** Each ordering's column on product_browse, its type, and how its key is printed into cursors. */
const SORT_KEYS: Record<Exclude<BrowseOrder['field'], 'ID'>, { column: string; type: string; text: string }> = {
  NAME: { column: 'b.name', type: 'text', text: 'b.name' },
  PRICE: { column: 'b.price', type: 'numeric', text: 'b.price::text' },
  CREATED_AT: { column: 'b.created_at', type: 'timestamptz', text: `to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` },
  UPDATED_AT: { column: 'b.updated_at', type: 'timestamptz', text: `to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` },
};

/**
 * Rows of an ordering a filtered page walks before it gives the walk up for
 * a read of every match (pageStatement).
 */
export const PAGE_WINDOW = 2000;

/**
 * A keyset page of products matching `filter` in `order` (ties by id, in the
 * same direction), after `after`, `limit` rows: the products' columns and
 * each row's sort key as text (for its cursor), and `extras`. `window` is
 * PAGE_WINDOW but in tests (a small catalogue never fills it).
 *
 * Under any ordering but price, a filter beyond one category is read in
 * two ways, of which one runs: the next PAGE_WINDOW rows of the ordering's
 * index (within the one category, if there is one) are walked, filtering,
 * and the page stops at its last row, which is all a wide filter needs;
 * only when the whole window holds fewer than `limit` matches does a
 * second read run, as the page's generic plan ran before the window
 * existed: a price range or several categories read their matches through
 * their own index and sort them; any other filter (on sale, in stock,
 * sizes: no index of their own) keeps walking the ordering's index. A
 * generic plan cannot choose between walking and sorting: estimating a
 * price range narrow, it sorted every match of a wide one (tens of
 * thousands of rows for one page); estimated wide, it walked a whole
 * category for a range nothing is in. The window does not prove a filter
 * narrow (names cluster by product type: a size common in the catalogue
 * can be absent from the first names), so the second read must not be
 * worse than the plan before it.
 */
export function pageStatement(filter: BrowseFilter, order: BrowseOrder, after: Position | undefined, limit: number, extras: PageExtras = {}, window = PAGE_WINDOW): BrowseStatement {
  const params = new Parameters();
  const direction = order.direction === 'ASC' ? 'ASC' : 'DESC';
  const comparison = order.direction === 'ASC' ? '>' : '<';
  const key = order.field === 'ID' ? undefined : SORT_KEYS[order.field];
  const orderBy = key ? `${key.column} ${direction}, b.product_id ${direction}` : `b.product_id ${direction}`;
  const cursor: string[] = [];
  if (after) {
    cursor.push(key
      ? `(${key.column}, b.product_id) ${comparison} (${params.add(after.key, key.type)}, ${params.add(after.id, 'int')})`
      : `b.product_id ${comparison} ${params.add(after.id, 'int')}`);
  }
  const columns = key ? `b.product_id, ${key.column}` : 'b.product_id';
  // The page's rows join their products one by one (a lateral read that
  // OFFSET 0 keeps from being flattened): as a plain join in id order, the
  // generic plan merged the page with the products' primary key from its
  // start: every row before a deep cursor read again.
  const select = (from: string) => `
    SELECT ${productColumns('p.')}, ${key?.text ?? 'NULL::text'} AS "sortKey"${styleColumn(extras)}
    FROM ${from} CROSS JOIN LATERAL (SELECT * FROM products p WHERE p.id = b.product_id OFFSET 0) p
    ORDER BY ${orderBy}
    LIMIT ${params.add(limit, 'int')}`;
  const several = filter.categories !== undefined && filter.categories.length > 1;
  const narrows = several || (Object.keys(filter) as FilterPart[]).some((part) => part !== 'categories' && filter[part] !== undefined);
  if (order.field === 'PRICE' || !narrows) {
    return named('browse_page', select(`(SELECT ${columns} FROM product_browse b ${whereClause([...conditions(filter, params), ...cursor])} ORDER BY ${orderBy} LIMIT ${params.add(limit, 'int')}) b`), params.values);
  }
  // One category bounds the walk (its index range); several are a filter
  // (a generic plan cannot walk several ranges in order), so a window of
  // categories no product has ends after PAGE_WINDOW rows, not the catalogue.
  const category = several ? [] : conditions(filter, params, ['priceMin', 'priceMax', 'onSale', 'inStock', 'sizes']);
  const narrowing = conditions(filter, params, several ? [] : ['categories']);
  // A second read that sorts orders by expressions no index has, so its
  // plan reads the matches by the filter's own index: ordered by the
  // columns, a generic plan with a cursor walks the ordering's index
  // instead, through the rest of the category (for a price nothing in it
  // has, after a cursor).
  const unindexed = key ? `${key.column} ${key.type === 'text' ? "|| ''" : "+ interval '0 s'"} ${direction}, b.product_id + 0 ${direction}` : `b.product_id + 0 ${direction}`;
  const sorted = filter.priceMin !== undefined || filter.priceMax !== undefined ? unindexed : orderBy;
  const pageLimit = params.add(limit, 'int');
  // Several categories: each category read as one is (its range of the
  // ordering's index walked, or its price range's matches sorted), and the
  // first rows of them all (`= ANY` of an array a generic plan cannot size
  // is read with a scan of every product).
  const secondRead = several
    ? `(SELECT b.* FROM unnest(${params.add(filter.categories, 'text[]')}) AS c(category)
        CROSS JOIN LATERAL (SELECT ${columns} FROM product_browse b ${whereClause(['b.category = c.category', ...conditions(filter, params, ['categories']), ...cursor])}
          ORDER BY ${sorted} LIMIT ${pageLimit}) b
        WHERE (SELECT needed FROM fallback) ORDER BY ${orderBy} LIMIT ${pageLimit})`
    : `(SELECT ${columns} FROM product_browse b ${whereClause([...conditions(filter, params), ...cursor, '(SELECT needed FROM fallback)'])}
       ORDER BY ${sorted} LIMIT ${pageLimit})`;
  const walk = (what: string) => `SELECT ${what} FROM product_browse b ${whereClause([...category, ...cursor])} ORDER BY ${orderBy} LIMIT ${window}`;
  const text = `
    WITH walked AS MATERIALIZED (
      SELECT ${columns} FROM (${walk(`${columns}, b.category, b.price, b.on_sale, b.sizes`)}) b
      ${whereClause(narrowing)} ORDER BY ${orderBy} LIMIT ${pageLimit}
    ), fallback AS MATERIALIZED (
      SELECT (SELECT count(*) FROM walked) < ${pageLimit}
        AND (SELECT count(*) FROM (${walk('1')}) b) = ${window} AS needed
    ), matched AS (
      SELECT ${columns} FROM walked b WHERE NOT (SELECT needed FROM fallback)
      UNION ALL
      ${secondRead}
    )${select('matched b')}`;
  return named('browse_page', text, params.values);
}

/**
 * Conditions of `filter` (but the parts in `except`) on a cell table, and
 * the table that answers them: the facet cells when sizes are not filtered,
 * the size cells for one size (several: sizeSetFacetsStatement).
 */
function cellsFrom(filter: BrowseFilter, params: Parameters, except: readonly FilterPart[]): { from: string; where: string[] } {
  const sizes = except.includes('sizes') ? undefined : filter.sizes;
  const where = conditions(filter, params, [...except, 'inStock', 'sizes']);
  if (sizes) {
    where.push(`b.size = ${params.add(sizes[0], 'text')}`);
    // Every product of the size cells has a size in stock.
    if (filter.inStock === false && !except.includes('inStock')) where.push('false');
    return { from: 'browse_size_cells b', where };
  }
  if (filter.inStock !== undefined && !except.includes('inStock')) where.push(filter.inStock ? 'b.in_stock' : 'NOT b.in_stock');
  return { from: 'browse_facet_cells b', where };
}

export type Count = (except: FilterPart[], select: string, group: string) => string;

/** One facet's count: `weight` summed over `from`'s rows that hold `where`, grouped by `group` (none: one row). */
const countSql = (select: string, weight: string, from: string, where: string[], group: string) =>
  `SELECT ${select}, ${weight} AS count FROM ${from} ${whereClause(where)}${group ? ` GROUP BY ${group}` : ''}`;

/** The four facet queries: `count` for a facet's rows (leaving out the filter parts it counts across), and the size facet's own. */
export function facetParts(count: Count, sizes: string, bands: string): string {
  return `
    ${count(['categories'], `'category' AS facet, b.category AS value`, 'b.category')}
    UNION ALL
    ${sizes}
    UNION ALL
    ${count(['priceMin', 'priceMax'], `'price', width_bucket(b.price, ${bands})::text`, '2')}
    UNION ALL
    ${count([], `'total', NULL`, '')}`;
}

/**
 * Counts over the rows of a CTE `m` that has already applied the filter
 * parts in `applied`: `weight` is what a row counts for.
 */
function countOver(filter: BrowseFilter, params: Parameters, applied: readonly FilterPart[], weight: string): Count {
  return (except, select, group) => countSql(select, weight, 'm b', conditions(filter, params, [...except, ...applied]), group);
}

/** The size facet from the size cells: every size but the filter's own part (a product without stock has no size in stock). */
function sizeFacetFromCells(filter: BrowseFilter, params: Parameters): string {
  const where = conditions(filter, params, ['inStock', 'sizes']);
  if (filter.inStock === false) where.push('false');
  return `SELECT 'size', b.size, sum(b.products)::bigint FROM browse_size_cells b ${whereClause(where)} GROUP BY b.size`;
}

/**
 * Facet counts in one statement: per category, per size in stock, per price
 * band, and the total, each counted over what matches every other part of
 * the filter (so a chosen category still shows the others' counts), the
 * total over all of it, from the cell tables (a few thousand rows, whatever
 * the catalogue's size; for two sizes, the pair's cells too; for more, the
 * size set cells). A search's: searchFacetsStatement (src/search/facets/search-facets.ts).
 * Rows: facet ('category' | 'size' | 'price' | 'total' | 'exact'), value, count.
 */
export function facetsStatement(filter: BrowseFilter): BrowseStatement {
  if (filter.sizes && filter.sizes.length > 1) return sizesFacetsStatement(filter);
  const params = new Parameters();
  const bands = params.add(PRICE_BANDS.slice(1), 'numeric[]');
  const count: Count = (except, select, group) => {
    const { from, where } = cellsFrom(filter, params, except);
    return countSql(select, 'sum(b.products)::bigint', from, where, group);
  };
  const text = `${facetParts(count, sizeFacetFromCells(filter, params), bands)}
    UNION ALL
    SELECT 'exact', NULL, 1`;
  return named('browse_facets', text, params.values);
}

/**
 * Facets of a filter on two or more sizes: the filter's onSale applied to
 * cells that count each product with any of the sizes once (`matches`, rows
 * of category, price and products), summed per category and price, then
 * counted three ways; the size facet from the size cells as usual.
 */
function sizesFacetsStatement(filter: BrowseFilter): BrowseStatement {
  const params = new Parameters();
  const bands = params.add(PRICE_BANDS.slice(1), 'numeric[]');
  const sizes = filter.sizes ?? [];
  const onSale = conditions(filter, params, ['categories', 'priceMin', 'priceMax', 'sizes', 'inStock']);
  // Every product of a size, pair or set cell has a size in stock.
  if (filter.inStock === false) onSale.push('false');
  let matches: string;
  if (sizes.length === 2) {
    // Either of two sizes: those with the first, plus those with the second,
    // less those with both (the pair cells; sizes in collation order).
    const [a, b] = [params.add(sizes[0], 'text'), params.add(sizes[1], 'text')];
    matches = `
      SELECT b.category, b.price, b.products FROM browse_size_cells b ${whereClause([`b.size IN (${a}, ${b})`, ...onSale])}
      UNION ALL
      SELECT b.category, b.price, -b.products FROM browse_size_pair_cells b ${whereClause([`b.size_a = least(${a}, ${b})`, `b.size_b = greatest(${a}, ${b})`, ...onSale])}`;
  } else {
    // The size set cells of every set holding one of them. The sets are
    // tested once and the cells matched to them in a hash (`= ANY` of the
    // sets' array compared each cell with every set).
    matches = `SELECT b.category, b.price, b.products FROM browse_size_set_cells b ${whereClause([
      `b.size_set IN (SELECT s.size_set FROM browse_size_sets s WHERE s.sizes && ${params.add(sizes, 'text[]')})`, ...onSale])}`;
  }
  const count = countOver(filter, params, ['sizes', 'onSale', 'inStock'], 'sum(b.products)::bigint');
  // Summed per category and price first: the three counts then read a few hundred rows, not tens of thousands.
  const text = `
    WITH m AS MATERIALIZED (SELECT b.category, b.price, sum(b.products)::bigint AS products FROM (${matches}) b GROUP BY 1, 2)
    ${facetParts(count, sizeFacetFromCells(filter, params), bands)}
    UNION ALL
    SELECT 'exact', NULL, 1`;
  return named(sizes.length === 2 ? 'browse_size_pair_facets' : 'browse_size_set_facets', text, params.values);
}
