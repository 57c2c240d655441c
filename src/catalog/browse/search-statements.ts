// The SQL of a search: its words resolved against the catalogue's dictionary
// (resolveStatement), a page of results in the order of the ranking rules
// (searchStatement, search-rules.ts), and its counts (searchFacetsStatement).
// Values are always parameters; the statement's shape (which levels a query
// can fill, which filters) is its text, one named prepared statement per shape.
import type { Position } from './browse-cursor.ts';
import type { BrowseFilter } from './browse-input.ts';
import {
  type BrowseStatement, conditions, facetParts, type FilterPart, named, type PageExtras, Parameters, PRICE_BANDS, styleColumn, whereClause,
} from './browse-statements.ts';
import { productColumns } from '../reads/queries.ts';
import {
  type Classes, COUNT_EXACT_UP_TO, FIELD_SQL, levelOf, possibleLevels, PREFIX_EXPANSION, SEARCH_BUCKETS, SEARCH_POSTINGS_SHARE, SEARCH_RUNS_AT_MOST, SEARCH_TIERS,
  TYPO_CANDIDATES, TYPO_COMMONER, TYPO_RARE_DOCUMENTS, TYPO_SIMILARITY,
} from './search-rules.ts';

/** A searched word, as resolveStatement found it in the dictionary. */
interface ResolvedWord {
  /** Its stem ('english'), as the documents hold it. */
  stem: string;
  /** The stem is a word of the catalogue (the exactness rule's "as typed"). */
  typed: boolean;
  /** Its part of the searched tsquery: the stem, the lexemes it completes to or a prefix, and its correction. */
  term: string;
  /** The exact lexemes `term` stands for, and those but the correction (null: a prefix, `stem`:*). */
  lexemes: string[] | null;
  plain: string[] | null;
  /** Documents holding it (summed over what it stands for). */
  documents: number;
  /** Searched (false: left out of a costly query, SEARCH_POSTINGS_SHARE). */
  kept: boolean;
  /** The dictionary has a pair lexeme of it and the next word (its lexemes, and its lexemes but the correction); null for the last word. */
  adjacent: boolean | null;
  adjacentPlain: boolean | null;
}

/** What a query matches, in one of the ways the rules compare: each kept word's term, and adjacent words' pair lexemes. */
export interface Matching {
  terms: readonly string[];
  pairs: readonly string[];
  /** Every pair has a lexeme in the dictionary: else no name holds the words adjacent (the proximity rule's first class is empty). */
  adjacent: boolean;
  /**
   * Every two kept words stand together in some name (search_name_pairs):
   * else no name holds every kept word, and the attribute rule's first
   * class (the name tier) is empty.
   */
  together: boolean;
}

/** A search's words as resolved: what is searched, and what each ranking rule compares with. */
export interface Resolved {
  /** The tsquery searched, as Postgres prints it (`searched`): the kept words' terms ANDed. */
  query: string;
  /** Everything searched: words as typed, completed and corrected. */
  searched: Matching;
  /** Without corrections (null: a word is only its correction): the typo rule's first class. */
  uncorrected: Matching | null;
  /** Each kept word as typed, its stem (null: a word is not one of the catalogue's): the exactness rule's "as typed". */
  typed: readonly string[] | null;
  /** The words as name_key holds a name's (the exactness rule's whole name), when every one is typed; else null. */
  nameKey: string | null;
  /** A word is searched with its correction (the typo rule's second class can hold rows). */
  corrected: boolean;
  /** A word is searched as more than its stem: completed or corrected (the exactness rule's last class can hold rows). */
  beyondTyped: boolean;
  /**
   * Lexemes each of whose holders matches the search, whose counts may be
   * kept whole: for one word as exact lexemes (as typed, completed,
   * corrected: not a prefix), those lexemes; for two such words (`pair`),
   * their pairs, either way round ('dress pant': the counts kept for a pair
   * are of the products holding both words). `alone`: the search is just
   * its one implying lexeme (one word, or two words, as one lexeme each).
   * Null: none.
   */
  implying: { lexemes: string[]; pair: boolean; alone: boolean } | null;
}

/** A lexeme as tsquery text (quotes and backslashes escaped). */
const lexemeTerm = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** SQL quoting a text expression as one tsquery lexeme (as lexemeTerm does). */
const tsLexeme = (expression: string) => `'''' || replace(replace(${expression}, '\\', '\\\\'), '''', '\\''') || ''''`;
/** levenshtein() takes at most 255 bytes: longer lexemes are never corrections (a searched word is at most 40 characters). */
const MAX_TYPO_LEXEME = 64;
/**
 * SQL: the letters of a text expression in sorted order. Two words of one
 * length, two edits apart, with the same letters: two letters swapped, one
 * edit. (Sorted only for those: sorting every candidate doubled the lookup.)
 */
const sortedLetters = (expression: string) => `(SELECT string_agg(c, '' ORDER BY c) FROM regexp_split_to_table(${expression}, '') AS c)`;
/** SQL: the dictionary's lexemes starting with a text expression (not the name's pair lexemes, which hold a space). */
const startingWith = (expression: string) => `l.lexeme >= ${expression} AND l.lexeme < ${expression} || chr(1114111) AND starts_with(l.lexeme, ${expression}) AND strpos(l.lexeme, ' ') = 0`;

/**
 * Where pairs of words are looked up: the names' adjacent pairs (lexemes of
 * the dictionary), and every two words found together in a name. `oneWord`:
 * one word of a name can match both searched words ('coats coat', 'coat c',
 * a word and its correction to the other), which search_name_pairs, pairs of
 * two different words, never holds; an adjacent pair is two positions, so
 * the dictionary holds 'coat coat' when a name does.
 */
const ADJACENT_IN_NAMES = { table: 'search_lexemes', column: 'lexeme', oneWord: false } as const;
const TOGETHER_IN_NAMES = { table: 'search_name_pairs', column: 'pair', oneWord: true } as const;

/**
 * SQL: whether `pairs` (as pairs are written, "a b") holds any of the
 * lexemes `first` and any of `next`, or, when `next` is null (a prefix),
 * one starting with a lexeme of `first` and `nextStem`: for the adjacent
 * pairs, the lexemes pairsOf searches. With `oneWord`, also whether a
 * lexeme of `first` is one of `next` (or starts with `nextStem`).
 */
const pairFound = (pairs: { table: string; column: string; oneWord: boolean }, first: string, next: string, nextStem: string) => {
  const pair = `l.${pairs.column}`;
  return `CASE WHEN ${next} IS NULL
    THEN ${pairs.oneWord ? `EXISTS (SELECT 1 FROM unnest(${first}) x WHERE starts_with(x, ${nextStem})) OR ` : ''}EXISTS (SELECT 1 FROM unnest(${first}) x, LATERAL (SELECT 1 FROM ${pairs.table} l
      WHERE ${pair} >= x || ' ' || ${nextStem} AND ${pair} < x || ' ' || ${nextStem} || chr(1114111) AND starts_with(${pair}, x || ' ' || ${nextStem}) LIMIT 1) f)
    ELSE ${pairs.oneWord ? `${first} && ${next} OR ` : ''}EXISTS (SELECT 1 FROM unnest(${first}) x, unnest(${next}) y, LATERAL (SELECT 1 FROM ${pairs.table} l
      WHERE ${pair} >= x || ' ' || y AND ${pair} <= x || ' ' || y LIMIT 1) f) END`;
};

/**
 * Each word stemmed as the documents were ('english'; stop words drop out);
 * looked up in the dictionary (search_lexemes, every lexeme of the
 * documents); the last word also completed (as you type): to the lexemes
 * it starts, when at most PREFIX_EXPANSION, else as a prefix. A word no
 * document has (and no completion) is corrected to the closest word of the
 * catalogue: among the TYPO_CANDIDATES nearest by trigram distance (a GiST
 * index over plain words: letters and digits, not a bare number), the one
 * with the fewest edits (a swap of two letters counting as one), then the
 * nearest, then the commonest; a word the catalogue has in at most
 * TYPO_RARE_DOCUMENTS documents is searched with such a correction too when
 * it is TYPO_COMMONER times as common. A bare number is never corrected.
 * Then the cost budget (SEARCH_POSTINGS_SHARE) keeps the rarest words.
 * Each word and the next are looked up among the names' adjacent pairs (the
 * proximity rule), and every two kept words among the words found together
 * in a name (search_name_pairs: the name tier).
 */
export function resolveStatement(words: readonly string[]): BrowseStatement {
  const text = `
    WITH words AS (
      SELECT n, n = cardinality($1::text[]) AS last, (tsvector_to_array(to_tsvector('english', w)))[1] AS stem
      FROM unnest($1::text[]) WITH ORDINALITY AS t(w, n)
    ), found AS MATERIALIZED (
      SELECT w.n, w.stem,
        -- A range, not =: the trigram GiST index also answers =, and the planner took it.
        (SELECT l.documents FROM search_lexemes l WHERE l.lexeme >= w.stem AND l.lexeme <= w.stem) AS documents,
        CASE WHEN w.last THEN ARRAY(SELECT l.lexeme FROM search_lexemes l WHERE ${startingWith('w.stem')} ORDER BY l.lexeme LIMIT ${PREFIX_EXPANSION + 1}) ELSE '{}' END AS completions
      FROM words w WHERE w.stem IS NOT NULL
    ), corrected AS MATERIALIZED ( -- each word's correction looked up once
      SELECT f.*, c.lexeme AS correction FROM found f LEFT JOIN LATERAL (
        SELECT near.lexeme FROM (
          -- Nearest first by the GiST index, ties with the last kept (a set that does not depend on the scan):
          -- with the lexeme as a second sort key, the generic plan measured every plain word's distance and sorted.
          SELECT l.lexeme, l.documents FROM search_lexemes l WHERE l.lexeme ~ '^[[:alnum:]]+$' AND l.lexeme !~ '^[0-9]+$'
          ORDER BY l.lexeme <-> f.stem FETCH FIRST ${TYPO_CANDIDATES} ROWS WITH TIES) near
        WHERE similarity(near.lexeme, f.stem) >= ${TYPO_SIMILARITY} AND length(near.lexeme) <= ${MAX_TYPO_LEXEME} AND near.lexeme <> f.stem
          -- A word the catalogue has (rarely) only beside a commoner one an edit away (a swap of two letters is one).
          AND (f.documents IS NULL OR near.documents >= ${TYPO_COMMONER} * greatest(f.documents, 1) AND (levenshtein(near.lexeme, f.stem) = 1
            OR length(near.lexeme) = length(f.stem) AND levenshtein(near.lexeme, f.stem) = 2 AND ${sortedLetters('near.lexeme')} = ${sortedLetters('f.stem')}))
          -- Looked up only for a word the catalogue lacks (and nothing completes), or has in few documents: a bare number never.
          AND f.stem !~ '^[0-9]+$' AND (f.documents IS NULL AND cardinality(f.completions) = 0 OR f.documents <= ${TYPO_RARE_DOCUMENTS})
        ORDER BY levenshtein(near.lexeme, f.stem) - CASE WHEN length(near.lexeme) = length(f.stem) AND levenshtein(near.lexeme, f.stem) = 2
            AND ${sortedLetters('near.lexeme')} = ${sortedLetters('f.stem')} THEN 1 ELSE 0 END,
          near.lexeme <-> f.stem, near.documents DESC, near.lexeme LIMIT 1
      ) c ON true
    ), resolved AS (
      SELECT r.*, CASE WHEN r.plain IS NULL THEN NULL ELSE ARRAY(SELECT DISTINCT x FROM unnest(r.plain || r.correction) x WHERE x IS NOT NULL ORDER BY x) END AS lexemes
      FROM (SELECT c.n, c.stem, c.documents IS NOT NULL AS typed, c.correction,
          -- What the word stands for without its correction: the lexemes it completes to, else itself (a word no document has: nothing).
          CASE WHEN cardinality(c.completions) > ${PREFIX_EXPANSION} THEN NULL
            WHEN cardinality(c.completions) > 0 THEN c.completions
            WHEN c.documents IS NOT NULL OR c.correction IS NULL THEN ARRAY[c.stem]
            ELSE '{}' END AS plain
        FROM corrected c) r
    ), weighed AS (
      SELECT r.*, CASE WHEN r.lexemes IS NULL
          THEN ${tsLexeme('r.stem')} || ':*'
          ELSE '( ' || array_to_string(ARRAY(SELECT ${tsLexeme('x')} FROM unnest(r.lexemes) x), ' | ') || ' )' END AS term,
        CASE WHEN r.lexemes IS NULL
          THEN (SELECT coalesce(sum(l.documents), 0) FROM search_lexemes l WHERE ${startingWith('r.stem')})
          ELSE (SELECT coalesce(sum(l.documents), 0) FROM search_lexemes l JOIN unnest(r.lexemes) x ON l.lexeme >= x AND l.lexeme <= x) END AS documents
      FROM resolved r
    ), size AS (
      -- The catalogue's size as last analyzed; never analyzed (-1): no word is left out.
      SELECT CASE WHEN c.reltuples < 0 THEN 'Infinity'::float8 ELSE c.reltuples END AS products FROM pg_class c WHERE c.oid = 'product_browse'::regclass
    ), kept AS (
      SELECT r.*, r.rarest = 1 OR r.running <= ${SEARCH_POSTINGS_SHARE} * (SELECT products FROM size) AS kept
      FROM (SELECT w.*, sum(w.documents) OVER (ORDER BY w.documents, w.n) AS running, row_number() OVER (ORDER BY w.documents, w.n) AS rarest FROM weighed w) r
    ), beside AS (
      SELECT k.*, lead(k.n) OVER w AS next_n, lead(k.stem) OVER w AS next_stem, lead(k.lexemes) OVER w AS next_lexemes, lead(k.plain) OVER w AS next_plain
      FROM kept k WINDOW w AS (ORDER BY k.n)
    )
    SELECT (SELECT string_agg(k.term, ' & ' ORDER BY k.n) FILTER (WHERE k.kept) FROM kept k)::tsquery::text AS searched,
      (SELECT json_agg(json_build_object('stem', k.stem, 'typed', k.typed, 'term', k.term::tsquery::text, 'lexemes', k.lexemes, 'plain', k.plain,
        'documents', k.documents, 'kept', k.kept,
        'adjacent', CASE WHEN k.next_n IS NOT NULL THEN ${pairFound(ADJACENT_IN_NAMES, 'coalesce(k.lexemes, ARRAY[k.stem])', 'k.next_lexemes', 'k.next_stem')} END,
        'adjacentPlain', CASE WHEN k.next_n IS NOT NULL THEN ${pairFound(ADJACENT_IN_NAMES, 'coalesce(k.plain, ARRAY[k.stem])', 'k.next_plain', 'k.next_stem')} END) ORDER BY k.n) FROM beside k) AS words,
      -- Every two kept words (the later one may be the last word, a prefix).
      (SELECT coalesce(bool_and(${pairFound(TOGETHER_IN_NAMES, 'a.lexemes', 'b.lexemes', 'b.stem')}), true)
        FROM kept a JOIN kept b ON a.n < b.n WHERE a.kept AND b.kept) AS together,
      (SELECT coalesce(bool_and(${pairFound(TOGETHER_IN_NAMES, 'a.plain', 'b.plain', 'b.stem')}), true)
        FROM kept a JOIN kept b ON a.n < b.n WHERE a.kept AND b.kept) AS "togetherPlain"`;
  return named('browse_resolve', text, [words]);
}

/** A word's lexemes as one tsquery term: ORed, or a prefix (null lexemes). */
const termOf = (stem: string, lexemes: readonly string[] | null) =>
  lexemes === null ? `${lexemeTerm(stem)}:*` : lexemes.length === 1 ? lexemeTerm(lexemes[0]!) : `( ${lexemes.map(lexemeTerm).join(' | ')} )`;

/** Resolved.implying of the kept words. */
function implyingLexemes(kept: readonly ResolvedWord[]): Resolved['implying'] {
  const exact = kept.map((w) => (w.lexemes !== null && w.lexemes.length > 0 ? w.lexemes : null));
  if (exact.some((lexemes) => lexemes === null)) return null;
  const [first, second] = exact as string[][];
  if (kept.length === 1) return { lexemes: first!, pair: false, alone: first!.length === 1 };
  if (kept.length === 2) {
    return { lexemes: first!.flatMap((a) => second!.flatMap((b) => [`${a} ${b}`, `${b} ${a}`])), pair: true, alone: first!.length === 1 && second!.length === 1 };
  }
  return null;
}

/** What resolveStatement's row stands for (null: only stop words). */
export function resolvedOf(row: { searched: string | null; words: ResolvedWord[] | null; together: boolean; togetherPlain: boolean } | undefined): Resolved | null {
  if (!row?.searched || !row.words) return null;
  const words = row.words;
  const kept = words.filter((w) => w.kept);
  /** Each two adjacent words' pair lexemes: any lexeme of a word beside any of the next (a prefix: the pairs it starts). */
  const pairsOf = (lexemes: (w: ResolvedWord) => string[] | null) => words.slice(0, -1).map((w, i) => {
    const next = words[i + 1]!;
    const after = lexemes(next);
    const combos = (lexemes(w) ?? [w.stem]).flatMap((a) => (after === null ? [`${lexemeTerm(`${a} ${next.stem}`)}:*`] : after.map((b) => lexemeTerm(`${a} ${b}`))));
    return combos.length === 1 ? combos[0]! : `( ${combos.join(' | ')} )`;
  });
  const uncorrected = words.every((w) => w.plain === null || w.plain.length > 0);
  const pairs = words.slice(0, -1);
  return {
    query: row.searched,
    searched: { terms: kept.map((w) => w.term), pairs: pairsOf((w) => w.lexemes), adjacent: pairs.every((w) => w.adjacent === true), together: row.together },
    uncorrected: uncorrected
      ? { terms: kept.map((w) => termOf(w.stem, w.plain)), pairs: pairsOf((w) => w.plain), adjacent: pairs.every((w) => w.adjacentPlain === true), together: row.togetherPlain }
      : null,
    typed: kept.every((w) => w.typed) ? kept.map((w) => lexemeTerm(w.stem)) : null,
    nameKey: words.every((w) => w.typed) ? words.map((w) => w.stem).join(' ') : null,
    corrected: kept.some((w) => w.lexemes !== null && w.lexemes.length !== w.plain!.length),
    beyondTyped: kept.some((w) => !w.typed || w.lexemes === null || w.lexemes.length !== 1),
    implying: implyingLexemes(kept),
  };
}

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

/**
 * The levels a query's results can be in, best first (possibleLevels), each
 * as conditions on product_browse b. A level that cannot hold a row (a
 * word not typed as the catalogue has it, no pairs, nothing completed or
 * corrected) is left out.
 */
function levelsOf(searched: Resolved, params: Parameters, filters: string[], fromLevel = 0): Level[] {
  // Parameters are added when a level first uses them (an unused one has no type Postgres can infer).
  const once = <T>(make: () => T) => { let value: T | undefined; return () => (value ??= make()); };
  const prepared = (matching: Matching) => ({
    all: once(() => params.add(matching.terms.map((t) => `( ${t} )`).join(' & '), 'tsquery')),
    terms: once(() => matching.terms.map((t) => params.add(t, 'tsquery'))),
    pairs: once(() => matching.pairs.map((p) => params.add(p, 'tsquery'))),
  });
  const everything = prepared(searched.searched);
  const uncorrected = searched.uncorrected && prepared(searched.uncorrected);
  const typed = searched.typed && once(() => params.add(searched.typed!.map((t) => `( ${t} )`).join(' & '), 'tsquery'));
  const typedTerms = searched.typed && once(() => searched.typed!.map((t) => params.add(t, 'tsquery')));
  const nameKey = once(() => params.add(searched.nameKey!, 'text'));
  const hasPairs = searched.searched.pairs.length > 0;
  const levels: Level[] = [];
  for (const classes of possibleLevels(hasPairs)) {
    if (levelOf(classes) < fromLevel) continue;
    if (classes.typo === 0 ? uncorrected === null : !searched.corrected) continue;
    if (classes.exactness === 0 && searched.nameKey === null) continue;
    if (classes.exactness === 1 && typed === null) continue;
    if (classes.exactness === 2 && !searched.beyondTyped) continue;
    const words = classes.typo === 0 ? searched.uncorrected! : searched.searched;
    // No name holds the words adjacent (a pair the dictionary lacks): the level is empty, not read.
    if (hasPairs && classes.proximity === 0 && !words.adjacent) continue;
    // No name holds every kept word (two of them share no name): the name tier is empty, not read.
    if (classes.attribute === 0 && !words.together) continue;
    const matching = classes.typo === 0 ? uncorrected! : everything;
    const tier = SEARCH_TIERS[classes.attribute]!;
    const where: string[] = [];
    if (classes.typo === 1 && uncorrected !== null) where.push(`NOT b.document @@ ${uncorrected.all()}`);
    if (classes.attribute > 0) where.push(`NOT b.${SEARCH_TIERS[classes.attribute - 1]!.column} @@ ${matching.all()}`);
    // Every word as typed: the stems alone select the level (each word's term holds its stem), so GIN
    // reads no completion's or correction's postings for it.
    const index = (classes.exactness === 1 ? typedTerms!() : matching.terms()).map((t) => `b.${tier.column} @@ ${t}`);
    if (hasPairs) {
      const adjacent = matching.pairs().map((p) => `b.match_a @@ ${p}`);
      if (classes.proximity === 0) index.push(...adjacent);
      else where.push(`NOT (${adjacent.join(' AND ')})`);
    }
    const wholeName = classes.exactness === 0 ? `b.name_key = ${nameKey()}` : null;
    if (wholeName === null) {
      if (searched.nameKey !== null && classes.typo === 0 && classes.attribute === 0 && classes.proximity === 0) where.push(`b.name_key <> ${nameKey()}`);
      if (typed !== null && classes.exactness === 2) where.push(`NOT b.${tier.column} @@ ${typed()}`);
    }
    levels.push({ level: levelOf(classes), classes, index, filters: [...where, ...filters], wholeName });
  }
  return levels;
}

/**
 * Snippets are cut from the fields of the result's tier, in weight order: a
 * name match shows the name, not a fragment of its description (cut from
 * every field, ts_headline parsed whole descriptions for every result).
 */
const snippetSource = (levels: readonly Level[]) => `CASE h.level ${levels.map((l) =>
  `WHEN ${l.level} THEN concat_ws(' · ', ${SEARCH_TIERS[l.classes.attribute]!.fields.map((f) => FIELD_SQL[f]).join(', ')})`).join(' ')} END`;
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
 * rules' order (search-rules.ts): level by level, each in tie-break order
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
function keptFacets(searched: Resolved, query: string, params: Parameters, bands: string, cap: string, otherwise: string): string {
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
  if (searched.implying !== null && unfiltered) {
    return named('browse_kept_facets', `WITH ${ctes.join(',\n    ')},${keptFacets(searched, query, params, bands, cap, counted)}`, params.values);
  }
  return named('browse_search_facets', `WITH ${ctes.join(',\n    ')}\n    ${counted}`, params.values);
}
