// The search's ranking rules, declared once. docs/browse.md ("Ranking")
// describes them for users; prisma/functions/refresh_product_browse.sql
// builds the columns they read; test/graphql/search-ranking.test.ts checks
// the order they give and that the columns hold the fields declared here.
//
// In the spirit of Meilisearch's ranking rules: every rule sorts what the
// rules before it left tied, and each stands for a handful of classes of
// results, best first:
//
//   words      every result holds every searched word (the matching rule:
//              a query's commonest words past SEARCH_POSTINGS_SHARE are
//              not searched, and `searched` shows what was)
//   typo       results holding every word as typed (or completed), before
//              those that need a misspelt word's correction
//   attribute  the smallest set of fields holding every word: the name,
//              then + category, then + slogan and feature values, then
//              + description
//   proximity  the words next to each other in the name, in the order
//              typed (an exact phrase), before the same words apart
//   exactness  the whole name is the query (its words, in order, nothing
//              else); then every word as typed; then a word only completed
//              (the last word as a prefix) or corrected
//   tie-break  the most popular first (how many products list it among
//              their related products), then the lowest id
//
// The order of RANKING_RULES is the order the rules apply in: moving a rule
// is one edit here (the stages, the `rank` values and the tests follow).

/** A tier of the attribute rule: the column holding the fields' words (weighted A-D in that order). */
export interface Tier {
  column: 'match_a' | 'match_ab' | 'match_abc' | 'document';
  fields: readonly SearchField[];
}

export type SearchField = 'name' | 'category' | 'slogan' | 'features' | 'description';

/** The attribute rule's tiers, best first: each column holds the fields of the one before and more. */
export const SEARCH_TIERS: readonly Tier[] = [
  { column: 'match_a', fields: ['name'] },
  { column: 'match_ab', fields: ['name', 'category'] },
  { column: 'match_abc', fields: ['name', 'category', 'slogan', 'features'] },
  { column: 'document', fields: ['name', 'category', 'slogan', 'features', 'description'] },
];

/** Each field as SQL over products aliased p (snippets are cut from a result's tier's fields). */
export const FIELD_SQL: Record<SearchField, string> = {
  name: 'p.name',
  category: 'p.category',
  slogan: 'p.slogan',
  features: `(SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id)`,
  description: 'p.description',
};

/**
 * The rules that order results, in the order they apply, and how many
 * classes each has (class 0 the best). `words` is the matching rule (every
 * result is in its one class) and the tie-break follows them all.
 */
export const RANKING_RULES = [
  { rule: 'typo', classes: ['no correction', 'a word corrected'] },
  { rule: 'attribute', classes: SEARCH_TIERS.map((tier) => tier.fields.join(', ')) },
  { rule: 'proximity', classes: ['adjacent in the name', 'apart'] },
  { rule: 'exactness', classes: ['the whole name', 'every word as typed', 'a word completed or corrected'] },
] as const;

export type RuleName = (typeof RANKING_RULES)[number]['rule'];

/** The class of each rule a result is in, by rule name. */
export type Classes = Record<RuleName, number>;

const RADIX = RANKING_RULES.map((r) => r.classes.length);
/** How many combinations of classes there are: the levels `rank` spreads over. */
export const RANK_LEVELS = RADIX.reduce((a, b) => a * b, 1);

/** A combination of classes as one number, smaller is better (the rules' order as digits, most significant first). */
export function levelOf(classes: Classes): number {
  return RANKING_RULES.reduce((code, rule, i) => code * RADIX[i]! + classes[rule.rule], 0);
}

/** The classes of a level (levelOf's inverse). */
export function classesOf(level: number): Classes {
  const classes = {} as Classes;
  for (let i = RANKING_RULES.length - 1; i >= 0; i--) {
    classes[RANKING_RULES[i]!.rule] = level % RADIX[i]!;
    level = Math.floor(level / RADIX[i]!);
  }
  return classes;
}

/**
 * A result's `rank`: 1 for the best level, lower for each later one, equal
 * exactly when every rule puts two results in the same class (ties are then
 * broken by popularity and id, which `rank` does not show).
 */
export const rankOf = (level: number) => (RANK_LEVELS - level) / RANK_LEVELS;

/**
 * Every level in the rules' order that a result can be in: the words
 * adjacent in the name, or the whole name, hold every word in the name (the
 * first tier); the whole name is the words as typed, and a corrected word
 * is not as typed. A query of one word (`pairs` false) has its words
 * adjacent, whatever the tier.
 */
export function possibleLevels(pairs: boolean): Classes[] {
  const all: Classes[] = [];
  for (let level = 0; level < RANK_LEVELS; level++) all.push(classesOf(level));
  return all.filter((c) => {
    if (c.exactness === 0 && (c.typo !== 0 || c.attribute !== 0 || c.proximity !== 0)) return false;
    if (c.exactness === 1 && c.typo !== 0) return false;
    if (!pairs) return c.proximity === 0;
    return c.proximity === 1 || c.attribute === 0;
  });
}

// --- Matching and cost: how words become what is searched ---------------

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

// --- Reading a level in tie-break order (search-statements.ts) ----------

/**
 * A level's next page is looked for run by run (search_buckets: about 4,096
 * products each, in tie-break order) through the tier's GIN index: first
 * SEARCH_BUCKETS runs. A run's scan is cheap (its rows lie together in the
 * table), but an empty or sparse level is best proven by one scan of every
 * match past the runs; a common level fills a page in its first run.
 */
export const SEARCH_BUCKETS = 2;
/**
 * When the first runs found the level dense enough to fill the page within
 * this many runs (SEARCH_BUCKETS * page <= SEARCH_RUNS_AT_MOST * found), it
 * is read on run by run, up to this many, before every match past them: a
 * level of a thousand or two matches spread over every run fills a page in
 * a few more runs, where reading every match past two runs read them all,
 * one heap page each, and sorted them.
 */
export const SEARCH_RUNS_AT_MOST = 16;

// --- Counts --------------------------------------------------------------

/**
 * Search counts (totalCount, facets) are exact up to this many matches;
 * past it they count the first COUNT_EXACT_UP_TO matches found, a lower
 * bound of every figure, and say so (exact: false; "at least").
 */
export const COUNT_EXACT_UP_TO = 10_000;

// Searches for one or two common words alone are counted from the counts
// the read model keeps for common lexemes (search_word_facets): those of a
// lexeme every holder of which matches, one word's own or two words' pair
// as a name holds it ('bright futur'), plus the other matches while the
// total stays within COUNT_EXACT_UP_TO (src/catalog/browse/search-statements.ts,
// keptFacets). Which lexemes are kept is decided by
// prisma/functions/rebuild_search_word_facets.sql, at every load.
