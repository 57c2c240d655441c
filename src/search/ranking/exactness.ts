// The exactness rule: the whole name is the query (its words, in order,
// nothing else: name_key, prisma/functions/search_name_words.sql), as typed
// or, among the results that need a correction, as corrected; then every
// word as typed; then a word only completed (the last word as a prefix) or
// corrected.
import type { RankingRule, Scope } from './rule.ts';

/** The name_key the whole name is: the words as typed, or in the typo rule's corrected class as corrected; null: none. */
const wholeNameKey = ({ resolved, classes, sql }: Scope) => (classes.typo === 0
  ? resolved.nameKey !== null ? sql.nameKey : null
  : resolved.correctedNameKey !== null ? sql.correctedNameKey : null);

/** The whole name is in the name tier, its words adjacent: one level at most for each of the typo rule's classes. */
const wholeNameAdmitted = (scope: Scope) => wholeNameKey(scope) !== null && scope.classes.attribute === 0 && scope.classes.proximity === 0;

export const exactness: RankingRule = {
  name: 'exactness',
  classes: ['the whole name', 'every word as typed', 'a word completed or corrected'],
  reads: [{ column: 'name_key', builtBy: 'prisma/functions/search_name_words.sql' }],
  admits(cls, level) {
    if (cls === 0) return wholeNameAdmitted(level);
    // A corrected word is not as typed.
    if (cls === 1) return level.classes.typo === 0 && level.resolved.typed !== null;
    return level.resolved.beyondTyped;
  },
  narrow(cls, { sql }) {
    // Every word as typed: the stems alone select the level (each word's term holds its stem), so GIN
    // reads no completion's or correction's postings for it.
    return cls === 1 ? { terms: sql.typedTerms! } : {};
  },
  select(cls, level) {
    const { sql, column } = level;
    const wholeName = wholeNameKey(level);
    if (cls === 0) return { wholeName: `b.name_key = ${wholeName!()}` };
    const where: string[] = [];
    // The whole name's level, where there is one beside this, took its rows.
    if (wholeNameAdmitted(level)) where.push(`b.name_key <> ${wholeName!()}`);
    if (sql.typed !== null && cls === 2) where.push(`NOT b.${column} @@ ${sql.typed()}`);
    return { where };
  },
};
