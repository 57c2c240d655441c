// The proximity rule (src/search/ranking/proximity.ts): the words adjacent in
// the name, in the order typed, before the same words apart.
import { describe, expect, it } from 'vitest';
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import { proximity } from '../../../src/search/ranking/proximity.ts';
import { classes, oneWord, resolved, scopeOf } from './scope.ts';

describe('the proximity rule', () => {
  it('puts every result of one word in its first class', () => {
    expect(proximity.admits(0, scopeOf(oneWord(), classes({ attribute: 3 })))).toBe(true);
    expect(proximity.admits(1, scopeOf(oneWord(), classes({ proximity: 1 })))).toBe(false);
    expect(proximity.select(0, scopeOf(oneWord(), classes()))).toEqual({});
  });

  it('has words adjacent only in the name tier, and only when the dictionary holds their pairs', () => {
    expect(proximity.admits(0, scopeOf(resolved(), classes({ typo: 1 })))).toBe(true);
    expect(proximity.admits(0, scopeOf(resolved(), classes({ typo: 1, attribute: 1 })))).toBe(false);
    const noPair = resolved({ searched: { ...resolved().searched, adjacent: false } });
    expect(proximity.admits(0, scopeOf(noPair, classes({ typo: 1 })))).toBe(false);
    expect(proximity.admits(1, scopeOf(noPair, classes({ typo: 1, attribute: 3 })))).toBe(true);
  });

  it('looks the pairs up in the name column, or leaves them out', () => {
    const params = new Parameters();
    expect(proximity.select(0, scopeOf(resolved(), classes({ typo: 1 }), params))).toEqual({ index: ['b.match_a @@ $1::tsquery'] });
    expect(params.values).toEqual(["( 'forest dress' | 'forest dresser' )"]);
    expect(proximity.select(1, scopeOf(resolved(), classes({ typo: 1, proximity: 1 })))).toEqual({ where: ['NOT (b.match_a @@ $1::tsquery)'] });
  });
});
