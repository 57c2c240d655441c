// The dictionary: a search's words looked up among the catalogue's lexemes
// (search_lexemes, every lexeme of the documents with how many hold it, and
// search_name_pairs, every two words found together in a name), in one
// statement: stemmed, completed (the last word, as you type), corrected (a
// misspelt word), weighed (the commonest words left out for cost), and
// each pair of words looked up among the names' pairs. What it answers is
// read by resolvedOf (resolved.ts); the dictionary tables are built by the
// read model (../read-model.ts).
import { type BrowseStatement, named } from '../../catalog/browse/browse-statements.ts';
import { tsLexeme } from './resolved.ts';

// --- How words become what is searched ----------------------------------

/** Lowest pg_trgm similarity of a correction to the misspelt word. */
export const TYPO_SIMILARITY = 0.2;
/**
 * A misspelt word's correction is chosen among this many lexemes nearest by
 * trigram distance (and any as near as the last of them), by edit distance: a swap of two letters breaks most of a
 * short word's trigrams, so the right word is often not the nearest ("pakra":
 * 'pair' is nearer than 'parka').
 */
export const TYPO_CANDIDATES = 10;
/**
 * A word the catalogue has but only in this many documents or fewer (the
 * odd misspelling in a description) is searched together with its
 * correction when that is one edit away (a swap of two letters is one) and
 * TYPO_COMMONER times as common: the products with the word as typed first
 * (the typo rule), then the others.
 */
export const TYPO_RARE_DOCUMENTS = 20;
export const TYPO_COMMONER = 20;
/**
 * A last word that the dictionary completes to at most this many lexemes is
 * searched as those lexemes, ORed (GIN intersects exact entries with the
 * other words', while a prefix entry is read whole first); past it, as a
 * prefix.
 */
export const PREFIX_EXPANSION = 16;
/**
 * How much posting-list work a search may ask for: the words' document
 * counts, summed from the rarest word up, at most this share of the
 * catalogue; commoner words past it are not searched (a conjunction is
 * never larger than its rarest word, so they narrow it least).
 */
export const SEARCH_POSTINGS_SHARE = 0.5;

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

