// The tie-break (src/search/ranking/tie-break.ts): what the rules left tied,
// the most popular first, then the lowest id, as search_order; on a catalogue
// in test/graphql/search-ranking.test.ts.
import { describe, expect, it } from 'vitest';
import { tieBreak } from '../../../src/search/ranking/tie-break.ts';
import { classes, resolved, scopeOf } from './scope.ts';

describe('the tie-break', () => {
  it('splits no level: one class, no condition', () => {
    expect(tieBreak.classes).toHaveLength(1);
    expect(tieBreak.admits(0, scopeOf(resolved(), classes()))).toBe(true);
    expect(tieBreak.select(0, scopeOf(resolved(), classes()))).toEqual({});
  });

  it('reads search_order and its runs', () => {
    expect(tieBreak.reads.map((r) => r.column)).toEqual(['search_order', 'search_bucket']);
  });
});
