// The exactness rule (src/search/ranking/exactness.ts): the whole name, then
// every word as typed, then a word completed or corrected.
import { describe, expect, it } from 'vitest';
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import { exactness } from '../../../src/search/ranking/exactness.ts';
import { classes, oneWord, resolved, scopeOf } from './scope.ts';

describe('the exactness rule', () => {
  it('has the whole name only in the first class of every other rule, and only when every word is typed', () => {
    expect(exactness.admits(0, scopeOf(oneWord(), classes()))).toBe(true);
    for (const rule of ['typo', 'attribute', 'proximity']) expect(exactness.admits(0, scopeOf(oneWord(), classes({ [rule]: 1 }))), rule).toBe(false);
    expect(exactness.admits(0, scopeOf(resolved(), classes()))).toBe(false);
  });

  it('has the whole name as corrected among the results that need a correction', () => {
    const params = new Parameters();
    const scope = scopeOf(resolved(), classes({ typo: 1 }), params);
    expect(exactness.admits(0, scope)).toBe(true);
    expect(exactness.select(0, scope)).toEqual({ wholeName: 'b.name_key = $1::text' });
    expect(params.values).toEqual(['forest dress']);
    expect(exactness.select(2, { ...scope, classes: classes({ typo: 1, exactness: 2 }) })).toEqual({ where: ['b.name_key <> $1::text'] });
    expect(exactness.admits(0, scopeOf(resolved({ correctedNameKey: null }), classes({ typo: 1 })))).toBe(false);
  });

  it('has the words as typed without a correction, and a completed or corrected class only when a word is', () => {
    expect(exactness.admits(1, scopeOf(oneWord(), classes({ exactness: 1, attribute: 2 })))).toBe(true);
    expect(exactness.admits(1, scopeOf(oneWord(), classes({ exactness: 1, typo: 1 })))).toBe(false);
    expect(exactness.admits(2, scopeOf(oneWord(), classes({ exactness: 2 })))).toBe(false);
    expect(exactness.admits(2, scopeOf(resolved(), classes({ exactness: 2 })))).toBe(true);
  });

  it('reads the whole name by name_key, and leaves it out of the level beside it', () => {
    const params = new Parameters();
    const scope = scopeOf(oneWord(), classes(), params);
    expect(exactness.select(0, scope)).toEqual({ wholeName: 'b.name_key = $1::text' });
    expect(params.values).toEqual(['forest']);
    expect(exactness.select(1, { ...scope, classes: classes({ exactness: 1 }) })).toEqual({ where: ['b.name_key <> $1::text'] });
    expect(exactness.select(1, { ...scope, classes: classes({ exactness: 1, attribute: 1 }) })).toEqual({ where: [] });
  });

  it('looks the words as typed up alone in its second class, and leaves them out of its third', () => {
    const params = new Parameters();
    const typed = resolved({ typed: ["'forest'", "'dres'"], beyondTyped: true });
    const scope = scopeOf(typed, classes({ typo: 1, exactness: 1, attribute: 3 }), params);
    expect({ ...scope, ...exactness.narrow!(1, scope) }.terms()).toEqual(['$1::tsquery', '$2::tsquery']);
    expect(params.values).toEqual(["'forest'", "'dres'"]);
    expect(exactness.select(2, { ...scope, column: 'match_ab', classes: classes({ typo: 1, exactness: 2, attribute: 1 }) }))
      .toEqual({ where: ['NOT b.match_ab @@ $3::tsquery'] });
  });
});
