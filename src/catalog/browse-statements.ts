// The SQL of browse pages, searches and facets, built from the request's
// shape: which filters it has, the ordering, a cursor or not. Values are
// always parameters; only the shape is text, so each shape is one named
// prepared statement per connection (a few hundred shapes at most), planned
// once for the shape's own predicates rather than for a catch-all
// `($1 IS NULL OR ...)` that no index serves. Everything reads the browse
// read model (product_browse, browse_facet_cells, search_lexemes: see the
// functions in prisma/functions and docs/browse.md).
import { createHash } from 'node:crypto';
import type { BrowseFilter, BrowseOrder } from './browse-input.ts';
import type { Position } from './browse-cursor.ts';
import { productColumns } from './queries.ts';

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
const styleColumn = (extras: PageExtras) => {
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

/**
 * Field weights of the search (refresh_product_browse, in the migrations,
 * sets them on the documents): A name, B category, C slogan and
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
  if (wanted('categories')) {
    // One category (a category page) as `=`: the (category, price) and
    // (category, id) indexes then give the page in order. With `= ANY` of an
    // array parameter the generic plan cannot know it holds one value, so
    // Postgres walked the whole sort-key index, filtering (726 buffers for a
    // page of 21 shorts by price, against 43; docs/browse.md).
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

const whereClause = (parts: string[]) => (parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`);

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
 * generic plan cannot choose between walking and sorting: it estimates a
 * price range at 0.5% of the rows, so it always sorted the matches (31,741
 * rows, 437 ms for a page of slacks at 50-100 by name at full scale);
 * estimated wide, it walked a whole category for a range nothing is in
 * (350 ms). The window does not prove a filter narrow (names cluster by
 * product type: size 13 is in 21% of products and none of the first 2,000
 * names), so the second read must not be worse than the plan before it.
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
  // start, 990,372 rows for a page after product 990,000 (529 ms).
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
  // columns, a generic plan with a cursor walked the ordering's index
  // instead, through the rest of the category (220 ms for a price no slacks
  // have, after a cursor).
  const unindexed = key ? `${key.column} ${key.type === 'text' ? "|| ''" : "+ interval '0 s'"} ${direction}, b.product_id + 0 ${direction}` : `b.product_id + 0 ${direction}`;
  const sorted = filter.priceMin !== undefined || filter.priceMax !== undefined ? unindexed : orderBy;
  const pageLimit = params.add(limit, 'int');
  // Several categories: each category read as one is (its range of the
  // ordering's index walked, or its price range's matches sorted), and the
  // first rows of them all (`= ANY` of an array a
  // generic plan cannot size was read with a scan of every product: 431 ms
  // for two categories no product has).
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
 * The search's tsquery, built from the request's words (letters and digits
 * only, checked before): each word stemmed as the documents were
 * (english); a stem the documents have is searched as it is; the last word
 * also as a prefix (as you type); a stem no document has is replaced by the
 * most similar word of the documents (letters and digits, not a bare number: pg_trgm
 * similarity at least TYPO_SIMILARITY), or left as it is (it then matches
 * nothing; so is a bare number: digits are not typos). Stop words
 * are dropped, and so are the commonest words past SEARCH_POSTINGS_SHARE.
 * All words searched must match. Returns the tsquery's text (null: only
 * stop words), which the search and facet statements then take as a parameter.
 */
export const TYPO_SIMILARITY = 0.2;
/**
 * How many lexemes nearest by trigram distance a misspelt word's correction
 * is chosen from, by edit distance: a swap of two letters breaks most of a
 * short word's trigrams, so the right word is often not the nearest ("pakra":
 * 'pair' is nearer than 'parka'). 10: as many of the bench's swapped nouns
 * corrected as with 20 (47 of 49; 44 with 5), a misspelt word's lookup 0.56
 * ms against 0.95 with 20 (0.45 by trigrams alone).
 */
export const TYPO_CANDIDATES = 10;
/** levenshtein() takes at most 255 bytes: longer lexemes are never corrections (a word searched is at most 40 characters). */
const MAX_TYPO_LEXEME = 64;
/**
 * SQL: the letters of a text expression in sorted order. Two words of one
 * length, two edits apart, with the same letters: two letters swapped, one
 * edit. (Sorted only for those: sorting every candidate doubled the lookup.)
 */
const sortedLetters = (expression: string) => `(SELECT string_agg(c, '' ORDER BY c) FROM regexp_split_to_table(${expression}, '') AS c)`;

/**
 * How a search tier finds its next page in id order (searchStatement):
 * first the next SEARCH_WINDOW products one by one (a tier holding at least
 * 21 in 500, 4%, fills its page there); then, bucket by bucket, the next
 * SEARCH_BUCKETS buckets of SEARCH_BUCKET ids each through the tier's GIN
 * index, which leads with the bucket (product_id / SEARCH_BUCKET: migration
 * 20261201000000), so GIN skips through the bucket and every word together:
 * 0.06-0.1 ms a bucket at full scale, whatever the words' frequencies;
 * only a tier sparser than that (about 21 in 32,768 products, 0.06%) asks
 * the index for every match past them, and then has few to sort. Without the
 * buckets a tier past its window intersects the words' whole posting lists,
 * whatever the page needs (docs/browse.md, "Why the statements are written").
 */
export const SEARCH_WINDOW = 500;
/** Ids per bucket: the divisor in the tier indexes' expression (checked by test/graphql/search-buckets.test.ts). */
export const SEARCH_BUCKET = 4096;
/** Buckets a tier reads one at a time before it asks for every match past them. */
export const SEARCH_BUCKETS = 8;

/**
 * How much posting-list work a search may ask for: the words' document
 * counts (search_lexemes.documents; a prefix counts every lexeme it
 * covers), summed from the rarest word up, at most this share of the
 * catalogue; the commoner words past it are left out of the search (the
 * rarest word is always kept; `searched` shows what was searched). A page
 * past the window intersects each word's whole posting list in up to four
 * tiers: eight words found in a third to a half of all products each took
 * 1.1 s of Postgres at full scale; a conjunction is never larger than its
 * rarest word, so the words left out are the ones that narrow it least.
 */
export const SEARCH_POSTINGS_SHARE = 0.5;

/**
 * A last word searched as a prefix that the dictionary (search_lexemes, which
 * holds every lexeme of the documents) completes to at most this many
 * lexemes is searched as those lexemes, ORed: the same matches, but GIN
 * intersects exact entries with the other words' (skipping through the
 * rarest), while a prefix entry is read whole into a bitmap first. "camo
 * oxfords" (`'camo' & 'oxford':*`, which covers one lexeme): 6.2 ms of GIN
 * as a prefix, 1.6 ms as the word (docs/browse.md).
 */
export const PREFIX_EXPANSION = 8;

/** SQL quoting a text expression as one tsquery lexeme (quotes and backslashes escaped). */
const tsLexeme = (expression: string) => `'''' || replace(replace(${expression}, '\\', '\\\\'), '''', '\\''') || ''''`;

export function resolveStatement(words: readonly string[]): BrowseStatement {
  const text = `
    WITH words AS (
      SELECT n, n = cardinality($1::text[]) AS last, (tsvector_to_array(to_tsvector('english', w)))[1] AS stem
      FROM unnest($1::text[]) WITH ORDINALITY AS t(w, n)
    ), terms AS MATERIALIZED ( -- each lexeme found once (inlined, the typo lookup ran once per use of it)
      SELECT n, resolved.lexeme, resolved.prefix FROM words, LATERAL (SELECT * FROM (VALUES
        (CASE
          WHEN EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme = stem) THEN stem
          WHEN last AND EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme > stem AND l.lexeme < stem || chr(1114111) AND starts_with(l.lexeme, stem)) THEN stem
          -- A bare number is taken as it is; anything else is corrected to a word of letters and digits that is not a bare number
          -- (not a compound, URL or address: the partial trigram index, migration 20261129040000).
          WHEN stem ~ '^[0-9]+$' THEN stem
          -- The nearest TYPO_CANDIDATES by trigrams, then the fewest edits (a swap of two letters is one), then the nearest, the commonest.
          ELSE coalesce((SELECT near.lexeme FROM (SELECT l.lexeme, l.documents FROM search_lexemes l WHERE l.lexeme ~ '^[[:alnum:]]+$' AND l.lexeme !~ '^[0-9]+$' ORDER BY l.lexeme <-> stem, l.lexeme LIMIT ${TYPO_CANDIDATES}) near
                         WHERE similarity(near.lexeme, stem) >= ${TYPO_SIMILARITY} AND length(near.lexeme) <= ${MAX_TYPO_LEXEME}
                         ORDER BY levenshtein(near.lexeme, stem) - CASE WHEN length(near.lexeme) = length(stem) AND levenshtein(near.lexeme, stem) = 2
                           AND ${sortedLetters('near.lexeme')} = ${sortedLetters('stem')} THEN 1 ELSE 0 END,
                           near.lexeme <-> stem, near.documents DESC, near.lexeme LIMIT 1), stem)
        END,
        last AND (EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme = stem)
          OR EXISTS (SELECT 1 FROM search_lexemes l WHERE l.lexeme > stem AND l.lexeme < stem || chr(1114111) AND starts_with(l.lexeme, stem))))
      ) v(lexeme, prefix)) resolved
      WHERE stem IS NOT NULL
    ), weighed AS (
      SELECT t.n, t.lexeme, t.prefix, CASE WHEN t.prefix
          THEN (SELECT coalesce(sum(l.documents), 0) FROM search_lexemes l WHERE l.lexeme >= t.lexeme AND l.lexeme < t.lexeme || chr(1114111) AND starts_with(l.lexeme, t.lexeme))
          -- A range, not =: the trigram GiST index also answers =, and the planner took it (1 ms a word, not 0.02).
          ELSE coalesce((SELECT l.documents FROM search_lexemes l WHERE l.lexeme >= t.lexeme AND l.lexeme <= t.lexeme), 0) END AS documents
      FROM terms t
    ), kept AS (
      SELECT * FROM (SELECT w.*, sum(w.documents) OVER (ORDER BY w.documents, w.n) AS running, row_number() OVER (ORDER BY w.documents, w.n) AS rarest FROM weighed w) r
      -- The catalogue's size as last analyzed; never analyzed (-1): no word is left out.
      WHERE r.rarest = 1 OR r.running <= ${SEARCH_POSTINGS_SHARE} * (SELECT CASE WHEN c.reltuples < 0 THEN 'Infinity'::float8 ELSE c.reltuples END FROM pg_class c WHERE c.oid = 'product_browse'::regclass)
    )
    SELECT string_agg(term, ' & ' ORDER BY n)::tsquery::text AS searched, array_agg(term::tsquery::text ORDER BY n) AS terms
    FROM (SELECT k.n, CASE
        WHEN NOT k.prefix THEN ${tsLexeme('k.lexeme')}
        WHEN cardinality(k.covered) BETWEEN 1 AND ${PREFIX_EXPANSION} THEN '( ' || array_to_string(ARRAY(SELECT ${tsLexeme('c')} FROM unnest(k.covered) c), ' | ') || ' )'
        ELSE ${tsLexeme('k.lexeme')} || ':*' END AS term
      FROM (SELECT kept.*, CASE WHEN kept.prefix THEN ARRAY(
        SELECT l.lexeme FROM search_lexemes l WHERE l.lexeme >= kept.lexeme AND l.lexeme < kept.lexeme || chr(1114111) AND starts_with(l.lexeme, kept.lexeme)
        ORDER BY l.lexeme LIMIT ${PREFIX_EXPANSION + 1}) END AS covered FROM kept) k) terms`;
  return named('browse_resolve', text, [words]);
}

/** A search's words as resolved: the tsquery's text, and each word's part of it (ANDed, they are the query). */
export interface Resolved {
  query: string;
  terms: readonly string[];
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

/**
 * What a snippet is cut from: the fields of the product's tier (the
 * smallest set holding every word), in weight order: a name match shows the
 * name, not a fragment of its description. (Cut from every field, snippets
 * were a third of a search's Postgres time: ts_headline parses the whole
 * text, 30-40 us a product.)
 */
const SNIPPET_FIELDS = ['p.name', 'p.category', `p.slogan, (SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id)`, 'p.description'];
const SNIPPET_SOURCE = `CASE h.tier ${SEARCH_TIERS.slice(0, -1).map((_, t) => `WHEN ${t} THEN concat_ws(' · ', ${SNIPPET_FIELDS.slice(0, t + 1).join(', ')})`).join(' ')}
  ELSE concat_ws(' · ', ${SNIPPET_FIELDS.join(', ')}) END`;
/** ts_headline options: one fragment of about 6-18 words, matches between « and ». */
export const SNIPPET_MARKS = { start: '«', stop: '»' } as const;
const SNIPPET_OPTIONS = `StartSel=${SNIPPET_MARKS.start}, StopSel=${SNIPPET_MARKS.stop}, MaxWords=18, MinWords=6, MaxFragments=1`;

/**
 * A page of search results for the tsquery `searched` (resolveStatement's
 * answer) and `filter`: tier by tier, each in id order, after `after` (tier
 * and id); `limit` rows: the product's columns, its tier as the sort key and
 * `extras` (a snippet when asked for; null otherwise). Each tier reads
 * SEARCH_WINDOW products in id order, then its index bucket by bucket, then
 * past the buckets (SEARCH_BUCKET); it stops at `limit` rows, and later
 * stages and tiers run only while the page is not full.
 */
export function searchStatement(searched: Resolved, filter: BrowseFilter, after: Position | undefined, limit: number, extras: PageExtras = {}): BrowseStatement {
  const params = new Parameters();
  const query = params.add(searched.query, 'tsquery');
  const filters = conditions(filter, params);
  const size = params.add(limit, 'int');
  const afterTier = after ? Number(after.key) : 0;
  const window = params.add(SEARCH_WINDOW, 'int');
  const terms = searched.terms.map((term) => params.add(term, 'tsquery'));
  const tiers = SEARCH_TIERS.flatMap((tier, t) => {
    if (t < afterTier) return [];
    const earlier = t > 0 ? [`NOT b.${SEARCH_TIERS[t - 1]!.column} @@ ${query}`] : [];
    const where = [`b.${tier.column} @@ ${query}`, ...earlier, ...filters];
    // Each word its own index key: GIN then skips through every key at once (bucket and words);
    // within one key (the whole tsquery) it looks for a product holding every word, past the bucket.
    const words = terms.map((term) => `b.${tier.column} @@ ${term}`);
    const indexed = [...words, ...earlier, ...filters];
    const fromId = after && t === afterTier ? after.id : 0;
    const from = fromId === 0 ? '0' : params.add(fromId, 'int');
    const first = Math.floor(fromId / SEARCH_BUCKET);
    // The buckets in order, one LATERAL read each: the nested loop over
    // generate_series stops at the page's last row (EXPLAIN: 5 of 8 loops for
    // "vintage hoodie"); as 8 UNION ALL branches the statement took 3.8 ms to
    // plan, 2.9 ms this way (unnamed statements, behind a transaction-mode
    // pooler, are planned at every search). A bucket's matches are read by its
    // GIN scan alone (OFFSET 0: not flattened) and filtered after: given the
    // filter too, the generic plan ANDed each bucket's scan with a scan of the
    // whole category's index, the same 62,000 entries for every bucket
    // ("jackets" in Shorts: 190-400 ms).
    const firstBucket = params.add(first, 'int');
    const buckets = `(SELECT x.product_id FROM generate_series(${firstBucket}, ${firstBucket} + ${SEARCH_BUCKETS - 1}) AS g(bucket), LATERAL (SELECT b.product_id FROM (
          SELECT * FROM product_browse b ${whereClause([`b.product_id / ${SEARCH_BUCKET} = g.bucket`, ...words])} OFFSET 0) b, w
        ${whereClause([...earlier, ...filters, 'b.product_id > w.last'])} ORDER BY b.product_id LIMIT ${size}) x)`;
    // bigint: past the last bucket of ids near 2^31 it is beyond int.
    const past = params.add((first + SEARCH_BUCKETS) * SEARCH_BUCKET, 'bigint');
    return [`(SELECT ${t} AS tier, product_id FROM (
        WITH w AS MATERIALIZED (SELECT coalesce(max(product_id), ${from}) AS last FROM (
          SELECT product_id FROM product_browse WHERE product_id > ${from} ORDER BY product_id LIMIT ${window}) ids),
        near AS MATERIALIZED (SELECT b.product_id FROM (
          SELECT * FROM product_browse WHERE product_id > ${from} ORDER BY product_id LIMIT ${window}) b ${whereClause(where)} ORDER BY b.product_id LIMIT ${size})
        SELECT product_id FROM near
        UNION ALL
        ${buckets}
        UNION ALL
        (SELECT b.product_id FROM product_browse b, w ${whereClause([...indexed, 'b.product_id + 0 > w.last', `b.product_id + 0 >= ${past}`])} ORDER BY b.product_id + 0 LIMIT ${size})
      ) found LIMIT ${size})`];
  });
  const text = `
    WITH hits AS (SELECT * FROM (${tiers.join('\n      UNION ALL ')}) t LIMIT ${size})
    SELECT ${productColumns('p.')}, h.tier::text AS "sortKey",
      ${extras.snippets ? `ts_headline('english', ${SNIPPET_SOURCE}, ${query}, '${SNIPPET_OPTIONS}')` : 'NULL::text'} AS snippet${styleColumn(extras)}
    FROM hits h JOIN products p ON p.id = h.product_id
    ORDER BY h.tier, h.product_id`;
  return named('browse_search', text, params.values);
}

/**
 * Search facets count every match of a search only when it has few; for a
 * common word they are estimated from a sample (docs/browse.md), since
 * counting all of "summer"'s 101,240 matches read 403,216 blocks (3 s).
 * The sample is the products whose id is a multiple of FACET_SAMPLE_MODULUS
 * (a partial GIN index of their own, migration 20261126090000): when it
 * holds at most EXACT_SAMPLE_MATCHES matches (about 3,200 expected in the
 * whole catalogue), every match is counted; otherwise the sample's counts
 * are scaled by the modulus, and at most FACET_SAMPLE_ROWS of them are
 * read (a word in most products: those in the first blocks of the table,
 * scaled by its share of the blocks).
 */
export const FACET_SAMPLE_MODULUS = 64;
export const EXACT_SAMPLE_MATCHES = 50;
export const FACET_SAMPLE_ROWS = 2000;

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

type Count = (except: FilterPart[], select: string, group: string) => string;

/** One facet's count: `weight` summed over `from`'s rows that hold `where`, grouped by `group` (none: one row). */
const countSql = (select: string, weight: string, from: string, where: string[], group: string) =>
  `SELECT ${select}, ${weight} AS count FROM ${from} ${whereClause(where)}${group ? ` GROUP BY ${group}` : ''}`;

/** The four facet queries: `count` for a facet's rows (leaving out the filter parts it counts across), and the size facet's own. */
function facetParts(count: Count, sizes: string, bands: string): string {
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
 * total over all of it. Without a search, from the cell tables (2,620 facet
 * cells and 9,512 size cells at full scale, whatever the catalogue's size;
 * for two sizes, the pair's cells too (38,130 pair cells in all); for more,
 * the 107,209 size set cells); with a search,
 * over its matches (searchFacetsStatement). Rows: facet ('category' |
 * 'size' | 'price' | 'total' | 'exact'), value, count.
 */
export function facetsStatement(filter: BrowseFilter, searched: Resolved | undefined): BrowseStatement {
  if (searched !== undefined) return searchFacetsStatement(filter, searched);
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
    // sets' array compared each cell with every set: 337 ms for the 1,405
    // sets holding 9 or 9.5).
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

/**
 * The facets of a search: its matches (with the filter's onSale and
 * inStock, which every facet keeps) in the sample first; if the sample
 * holds few, all of them instead (one-time filters: only one of the two
 * reads runs); then counted four ways, each row weighing 1, or the sample's
 * scale, and an 'exact' row saying which.
 */
function searchFacetsStatement(filter: BrowseFilter, searched: Resolved): BrowseStatement {
  const params = new Parameters();
  const query = params.add(searched.query, 'tsquery');
  const bands = params.add(PRICE_BANDS.slice(1), 'numeric[]');
  const matches = whereClause([`b.document @@ ${query}`, ...conditions(filter, params, ['categories', 'priceMin', 'priceMax', 'sizes'])]);
  const weight = 'round(count(*) * (SELECT scale FROM sampled))::bigint';
  const count = countOver(filter, params, ['onSale', 'inStock'], weight);
  const sizeWhere = conditions(filter, params, ['sizes', 'onSale', 'inStock']);
  // Matches grouped by their set of sizes first: a few hundred sets to
  // unnest, not every match's sizes (8,688 for "summer"'s 1,546 sampled matches).
  const sizes = `SELECT 'size', size, round(sum(g.n) * (SELECT scale FROM sampled))::bigint
    FROM (SELECT b.sizes, count(*) AS n FROM m b ${whereClause(sizeWhere)} GROUP BY b.sizes) g CROSS JOIN unnest(g.sizes) AS size GROUP BY size`;
  const text = `
    WITH s AS MATERIALIZED (
      SELECT b.category, b.price, b.sizes, (b.ctid::text::point)[0] AS block
      FROM product_browse b ${matches} AND b.product_id % ${FACET_SAMPLE_MODULUS} = 0
      LIMIT ${FACET_SAMPLE_ROWS + 1}
    ), sampled AS MATERIALIZED (
      SELECT count(*) > ${EXACT_SAMPLE_MATCHES} AS partial,
        CASE WHEN count(*) <= ${EXACT_SAMPLE_MATCHES} THEN 1
          WHEN count(*) <= ${FACET_SAMPLE_ROWS} THEN ${FACET_SAMPLE_MODULUS}
          ELSE ${FACET_SAMPLE_MODULUS} * (pg_relation_size('product_browse'::regclass) / current_setting('block_size')::int) / (max(block) + 1)
        END AS scale
      FROM s
    ), m AS MATERIALIZED (
      SELECT category, price, sizes FROM s WHERE (SELECT partial FROM sampled)
      UNION ALL
      SELECT b.category, b.price, b.sizes FROM product_browse b ${matches} AND NOT (SELECT partial FROM sampled)
    )${facetParts(count, sizes, bands)}
    UNION ALL
    SELECT 'exact', NULL, CASE WHEN partial THEN 0 ELSE 1 END FROM sampled`;
  return named('browse_search_facets', text, params.values);
}
