// What a ranking rule is. As in Meilisearch's ranking rules, each rule sorts
// what the rules before it left tied into a handful of classes, best first;
// the bucket sort (../bucket-sort.ts) reads the combinations of classes (the
// levels) in order. A rule declares, for each of its classes:
//   - whether a search can have rows in it (`admits`: what the dictionary
//     found, and which classes of the other rules the level is in: the
//     whole name is only in the name tier, say), so a level no row can be
//     in is never read;
//   - what later rules compare with (`narrow`: the typo rule's first class
//     compares the words without corrections);
//   - the conditions on product_browse (alias b) that select it (`select`):
//     conditions its tier's GIN index answers, filters past the index, or
//     the whole-name lookup by name_key.
// `reads` names the columns it reads and the SQL that builds them.
import type { Matching, Resolved } from '../dictionary/resolved.ts';
import type { MatchingSql, QuerySql } from '../matching.ts';

/** The class of each rule a level is in, by rule name (0 the best). */
export type Classes = Readonly<Record<string, number>>;

/** The search_documents tier columns of product_browse (the attribute rule's). */
export type TierColumn = 'match_a' | 'match_ab' | 'match_abc' | 'document';

/** A level as the rules before (and, for `select`, every rule) narrowed it. */
export interface Scope {
  resolved: Resolved;
  sql: QuerySql;
  classes: Classes;
  /** The search has two words or more: its adjacent pairs can be looked for. */
  hasPairs: boolean;
  /** The words the level's rows hold, and their tsqueries (the typo rule narrows them). */
  words: Matching;
  wordsSql: MatchingSql;
  /** The tier column the level's words are looked up in (the attribute rule's). */
  column: TierColumn;
  /** The terms looked up in that column through its GIN index (the exactness rule narrows them). */
  terms: () => string[];
}

/** What a rule's class adds to a level's read. */
export interface Conditions {
  /** Answered by the tier's GIN index, one a word (GIN skips through them together). */
  index?: string[];
  /** Checked past the index: the rows earlier levels took left out. */
  where?: string[];
  /** A condition on name_key the level is read by instead (its btree, every row, sorted). */
  wholeName?: string;
}

/** A column a rule reads, and the SQL (prisma/functions/) that builds it. */
export interface Read {
  column: string;
  builtBy: string;
}

export interface RankingRule {
  name: string;
  /** Its classes, best first. */
  classes: readonly string[];
  reads: readonly Read[];
  admits(cls: number, level: Scope): boolean;
  narrow?(cls: number, level: Scope): Partial<Scope>;
  select(cls: number, level: Scope): Conditions;
}
