// The ranking rules in the order they apply: each sorts what the rules
// before it left tied. Moving a rule is one edit here (the levels, `rank`
// and the tests follow); a rule's meaning is its own file. docs/browse.md
// ("Ranking") describes them for users.
import { attribute } from './attribute.ts';
import { exactness } from './exactness.ts';
import { proximity } from './proximity.ts';
import type { Classes, RankingRule } from './rule.ts';
import { tieBreak } from './tie-break.ts';
import { typo } from './typo.ts';

// Attribute before proximity (Meilisearch's default has them the other way
// round): a phrase in a description never outranks the words in the name.
export const RANKING_RULES: readonly RankingRule[] = [typo, attribute, proximity, exactness, tieBreak];

const RADIX = RANKING_RULES.map((r) => r.classes.length);
/** How many combinations of classes there are: the levels `rank` spreads over. */
export const RANK_LEVELS = RADIX.reduce((a, b) => a * b, 1);

/** A combination of classes as one number, smaller is better (the rules' order as digits, most significant first). */
export function levelOf(classes: Classes): number {
  return RANKING_RULES.reduce((code, rule, i) => code * RADIX[i]! + classes[rule.name]!, 0);
}

/** The classes of a level (levelOf's inverse). */
export function classesOf(level: number): Classes {
  const classes: Record<string, number> = {};
  for (let i = RANKING_RULES.length - 1; i >= 0; i--) {
    classes[RANKING_RULES[i]!.name] = level % RADIX[i]!;
    level = Math.floor(level / RADIX[i]!);
  }
  return classes;
}

/**
 * A result's `rank`: 1 for the best level, lower for each later one, equal
 * exactly when every rule puts two results in the same class.
 */
export const rankOf = (level: number) => (RANK_LEVELS - level) / RANK_LEVELS;
