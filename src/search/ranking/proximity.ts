// The proximity rule: the words next to each other in the name, in the order
// typed (an exact phrase; stop words between them do not count), before the
// same words apart. The name's adjacent word pairs are lexemes of match_a
// ('forest dress', prisma/functions/search_word_pairs.sql), so the first
// class is a GIN lookup of the search's pairs.
import type { RankingRule } from './rule.ts';

export const proximity: RankingRule = {
  name: 'proximity',
  classes: ['adjacent in the name', 'apart'],
  reads: [{ column: 'match_a', builtBy: 'prisma/functions/search_word_pairs.sql' }],
  admits(cls, { hasPairs, classes, words }) {
    // One word is adjacent to itself: every result is in the first class.
    if (!hasPairs) return cls === 0;
    // Adjacent in the name means every word is in the name (the attribute rule's name tier), and some
    // name holds the pairs (the dictionary has every name's pairs: one it lacks is in no name).
    return cls === 1 || (classes.attribute === 0 && words.adjacent);
  },
  select(cls, { hasPairs, wordsSql }) {
    if (!hasPairs) return {};
    const adjacent = wordsSql.pairs().map((p) => `b.match_a @@ ${p}`);
    return cls === 0 ? { index: adjacent } : { where: [`NOT (${adjacent.join(' AND ')})`] };
  },
};
