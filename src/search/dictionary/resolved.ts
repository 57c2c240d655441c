// A search's words as the dictionary resolved them (resolve.ts), and what
// each part of the engine compares with: the words searched (matching.ts),
// the typo rule's words without corrections, the exactness rule's words as
// typed and whole name, the facets' implying lexemes (facets/kept-counts.ts).

/** A searched word, as resolveStatement found it in the dictionary. */
export interface ResolvedWord {
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
  /**
   * The same with each corrected word as its correction (the whole name
   * among the results that need a correction: "shrots" meant a product
   * named "Shorts"), when a word was corrected and every other is typed;
   * else null.
   */
  correctedNameKey: string | null;
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
export const lexemeTerm = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** SQL quoting a text expression as one tsquery lexeme (as lexemeTerm does). */
export const tsLexeme = (expression: string) => `'''' || replace(replace(${expression}, '\\', '\\\\'), '''', '\\''') || ''''`;

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

/** A word's correction: what it is searched as beyond what it stands for uncorrected (its lexemes but its plain ones). */
const correctionOf = (w: ResolvedWord) => (w.lexemes !== null && w.plain !== null && w.lexemes.length === w.plain.length + 1
  ? w.lexemes.find((lexeme) => !w.plain!.includes(lexeme)) : undefined);

/** Resolved.correctedNameKey of the words. */
function correctedNameKey(words: readonly ResolvedWord[]): string | null {
  const corrected = words.map(correctionOf);
  if (corrected.every((c) => c === undefined) || words.some((w, i) => !w.typed && corrected[i] === undefined)) return null;
  return words.map((w, i) => corrected[i] ?? w.stem).join(' ');
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
    correctedNameKey: correctedNameKey(words),
    corrected: kept.some((w) => w.lexemes !== null && w.lexemes.length !== w.plain!.length),
    beyondTyped: kept.some((w) => !w.typed || w.lexemes === null || w.lexemes.length !== 1),
    implying: implyingLexemes(kept),
  };
}
