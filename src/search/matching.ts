// The matching rule ("words"): every result holds every kept word of the
// search (the words the dictionary left out for cost are not searched).
// Each ranking rule compares a level's rows with the same words in one of
// their forms (as searched, without corrections, as typed), so each form's
// tsqueries are made here once per statement, as parameters, the first
// time a level uses them (an unused parameter has no type Postgres can
// infer, so none is added before it is used).
import type { Parameters } from '../catalog/browse/browse-statements.ts';
import type { Matching, Resolved } from './dictionary/resolved.ts';

/** A form of the words as tsquery parameters: all ANDed, each word's term, each adjacent pair's lexemes. */
export interface MatchingSql {
  all(): string;
  terms(): string[];
  pairs(): string[];
}

/** Every form of a search's words a level can compare with, as parameters added on first use. */
export interface QuerySql {
  /** As searched: typed, completed and corrected. */
  searched: MatchingSql;
  /** Without corrections (null: a word is only its correction). */
  uncorrected: MatchingSql | null;
  /** Every kept word as typed, ANDed, and each alone (null: a word is not the catalogue's). */
  typed: (() => string) | null;
  typedTerms: (() => string[]) | null;
  /** The words as name_key holds a name's: as typed, or with their corrections. */
  nameKey: () => string;
  correctedNameKey: () => string;
}

const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

function matchingSql(matching: Matching, params: Parameters): MatchingSql {
  return {
    all: once(() => params.add(matching.terms.map((t) => `( ${t} )`).join(' & '), 'tsquery')),
    terms: once(() => matching.terms.map((t) => params.add(t, 'tsquery'))),
    pairs: once(() => matching.pairs.map((p) => params.add(p, 'tsquery'))),
  };
}

/** The tsqueries of a resolved search, added to `params` when a level first uses each. */
export function querySql(resolved: Resolved, params: Parameters): QuerySql {
  const typed = resolved.typed;
  return {
    searched: matchingSql(resolved.searched, params),
    uncorrected: resolved.uncorrected && matchingSql(resolved.uncorrected, params),
    typed: typed && once(() => params.add(typed.map((t) => `( ${t} )`).join(' & '), 'tsquery')),
    typedTerms: typed && once(() => typed.map((t) => params.add(t, 'tsquery'))),
    nameKey: once(() => params.add(resolved.nameKey!, 'text')),
    correctedNameKey: once(() => params.add(resolved.correctedNameKey!, 'text')),
  };
}
