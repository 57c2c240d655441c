// A level's scope for a rule's own tests: a resolved search of two or one
// words, as the dictionary could answer it, with every rule's class given.
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import type { Resolved } from '../../../src/search/dictionary/resolved.ts';
import { querySql } from '../../../src/search/matching.ts';
import type { Classes, Scope } from '../../../src/search/ranking/rule.ts';

/** "forest dres": 'dres' corrected to 'dress' (and completed to 'dresser'), adjacent and together in names. */
export function resolved(changes: Partial<Resolved> = {}): Resolved {
  return {
    query: "'forest' & ( 'dress' | 'dresser' )",
    searched: { terms: ["'forest'", "( 'dress' | 'dresser' )"], pairs: ["( 'forest dress' | 'forest dresser' )"], adjacent: true, together: true },
    uncorrected: { terms: ["'forest'", "'dresser'"], pairs: ["'forest dresser'"], adjacent: false, together: true },
    typed: null,
    nameKey: null,
    correctedNameKey: 'forest dress',
    corrected: true,
    beyondTyped: true,
    implying: null,
    ...changes,
  };
}

/** One word, typed as the catalogue has it: "forest". */
export const oneWord = (): Resolved => resolved({
  query: "'forest'", searched: { terms: ["'forest'"], pairs: [], adjacent: true, together: true },
  uncorrected: { terms: ["'forest'"], pairs: [], adjacent: true, together: true }, typed: ["'forest'"], nameKey: 'forest', correctedNameKey: null, corrected: false, beyondTyped: false,
});

/** The scope the bucket sort gives every rule before the rules narrow it. */
export function scopeOf(search: Resolved, classes: Classes, params = new Parameters()): Scope {
  const sql = querySql(search, params);
  return { resolved: search, sql, classes, hasPairs: search.searched.pairs.length > 0, words: search.searched, wordsSql: sql.searched, column: 'document', terms: sql.searched.terms };
}

/** Every rule in its first class, but those given. */
export const classes = (given: Record<string, number> = {}): Classes => ({ typo: 0, attribute: 0, proximity: 0, exactness: 0, 'tie-break': 0, ...given });
