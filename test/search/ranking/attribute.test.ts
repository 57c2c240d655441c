// The attribute rule (src/search/ranking/attribute.ts): the smallest set of
// fields holding every word. That each tier column holds exactly its
// declared fields is checked on a catalogue in test/graphql/search-ranking.test.ts.
import { describe, expect, it } from 'vitest';
import { Parameters } from '../../../src/catalog/browse/browse-statements.ts';
import { attribute, SEARCH_TIERS } from '../../../src/search/ranking/attribute.ts';
import { classes, resolved, scopeOf } from './scope.ts';

describe('the attribute rule', () => {
  it('has a class per tier, each holding the fields of the one before and more, the name first', () => {
    expect(attribute.classes).toEqual(['name', 'name, category', 'name, category, slogan, features', 'name, category, slogan, features, description']);
    SEARCH_TIERS.slice(1).forEach((tier, i) => expect(tier.fields.slice(0, SEARCH_TIERS[i]!.fields.length)).toEqual(SEARCH_TIERS[i]!.fields));
    expect(attribute.reads.map((r) => r.column)).toEqual(['match_a', 'match_ab', 'match_abc', 'document']);
  });

  it('reads the name tier only when every two kept words share some name', () => {
    expect(attribute.admits(0, scopeOf(resolved(), classes()))).toBe(true);
    const apart = resolved({ searched: { ...resolved().searched, together: false } });
    expect(attribute.admits(0, scopeOf(apart, classes({ typo: 1 })))).toBe(false);
    expect(attribute.admits(1, scopeOf(apart, classes({ typo: 1, attribute: 1 })))).toBe(true);
  });

  it('looks the words up in its tier column, leaving out what the tier before it holds', () => {
    const params = new Parameters();
    const scope = scopeOf(resolved(), classes({ typo: 1, attribute: 2 }), params);
    const narrowed = { ...scope, ...attribute.narrow!(2, scope) };
    expect(narrowed.column).toBe('match_abc');
    expect(attribute.select(2, narrowed)).toEqual({
      where: ['NOT b.match_ab @@ $1::tsquery'],
      index: ['b.match_abc @@ $2::tsquery', 'b.match_abc @@ $3::tsquery'],
    });
    expect(params.values[0]).toBe("( 'forest' ) & ( ( 'dress' | 'dresser' ) )");
    expect(attribute.select(0, { ...scope, ...attribute.narrow!(0, scope) }).where).toEqual([]);
  });
});
