// The typo rule (src/search/ranking/typo.ts): words as typed before a correction.
import { describe, expect, it } from 'vitest';
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import { typo } from '../../../src/search/ranking/typo.ts';
import { classes, oneWord, resolved, scopeOf } from './scope.ts';

describe('the typo rule', () => {
  it('has a class without corrections only when every word is something uncorrected, and a corrected class only when a word was corrected', () => {
    expect(typo.admits(0, scopeOf(resolved(), classes()))).toBe(true);
    expect(typo.admits(1, scopeOf(resolved(), classes({ typo: 1 })))).toBe(true);
    expect(typo.admits(0, scopeOf(resolved({ uncorrected: null }), classes()))).toBe(false);
    expect(typo.admits(1, scopeOf(oneWord(), classes({ typo: 1 })))).toBe(false);
  });

  it('makes the later rules compare the words without corrections in its first class, and as searched in its second', () => {
    const search = resolved();
    const first = typo.narrow!(0, scopeOf(search, classes()));
    expect(first.words).toBe(search.uncorrected);
    const params = new Parameters();
    const scope = scopeOf(search, classes(), params);
    expect({ ...scope, ...typo.narrow!(0, scope) }.terms()).toEqual(['$1::tsquery', '$2::tsquery']);
    expect(params.values).toEqual(["'forest'", "'dresser'"]);
    expect(typo.narrow!(1, scopeOf(search, classes({ typo: 1 })))).toEqual({});
  });

  it('leaves out of the corrected class every product holding the words uncorrected, in any field', () => {
    const params = new Parameters();
    expect(typo.select(1, scopeOf(resolved(), classes({ typo: 1 }), params))).toEqual({ where: ['NOT b.document @@ $1::tsquery'] });
    expect(params.values).toEqual(["( 'forest' ) & ( 'dresser' )"]);
    expect(typo.select(0, scopeOf(resolved(), classes()))).toEqual({});
    expect(typo.select(1, scopeOf(resolved({ uncorrected: null }), classes({ typo: 1 })))).toEqual({});
  });
});
