// The typo rule: results holding every word as typed (or completed) before
// those that need a misspelt word's correction (the dictionary's, resolve.ts).
import type { RankingRule } from './rule.ts';

export const typo: RankingRule = {
  name: 'typo',
  classes: ['no correction', 'a word corrected'],
  // What it reads is what the words read (each tier's column); it only chooses which words.
  reads: [{ column: 'document', builtBy: 'prisma/functions/refresh_product_browse.sql' }],
  admits(cls, { resolved }) {
    // No correction: only when every word is something without its correction; corrected: only when one was corrected.
    return cls === 0 ? resolved.uncorrected !== null : resolved.corrected;
  },
  narrow(cls, { resolved, sql }) {
    // The first class's rows hold the words without corrections; later rules compare with those.
    if (cls !== 0) return {};
    return { words: resolved.uncorrected!, wordsSql: sql.uncorrected!, terms: sql.uncorrected!.terms };
  },
  select(cls, { sql }) {
    // The corrected class leaves out what the first class took (any field holding the words uncorrected).
    if (cls === 1 && sql.uncorrected !== null) return { where: [`NOT b.document @@ ${sql.uncorrected.all()}`] };
    return {};
  },
};
