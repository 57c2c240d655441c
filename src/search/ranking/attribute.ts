// The attribute rule: the smallest set of fields holding every word. Each
// tier is a tsvector column of product_browse holding the fields of the one
// before and more (weighted A-D in that order), built by
// prisma/functions/refresh_product_browse.sql; test/search/ranking/attribute.test.ts
// checks that each column holds exactly the declared fields' words.
import type { RankingRule, TierColumn } from './rule.ts';

export type SearchField = 'name' | 'category' | 'slogan' | 'features' | 'description';

/** A tier: the column holding the fields' words. */
export interface Tier {
  column: TierColumn;
  fields: readonly SearchField[];
}

/** The tiers, best first: each column holds the fields of the one before and more. */
export const SEARCH_TIERS: readonly Tier[] = [
  { column: 'match_a', fields: ['name'] },
  { column: 'match_ab', fields: ['name', 'category'] },
  { column: 'match_abc', fields: ['name', 'category', 'slogan', 'features'] },
  { column: 'document', fields: ['name', 'category', 'slogan', 'features', 'description'] },
];

/** Each field as SQL over products aliased p (snippets are cut from a result's tier's fields). */
export const FIELD_SQL: Record<SearchField, string> = {
  name: 'p.name',
  category: 'p.category',
  slogan: 'p.slogan',
  features: `(SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id)`,
  description: 'p.description',
};

export const attribute: RankingRule = {
  name: 'attribute',
  classes: SEARCH_TIERS.map((tier) => tier.fields.join(', ')),
  reads: SEARCH_TIERS.map((tier) => ({ column: tier.column, builtBy: 'prisma/functions/refresh_product_browse.sql' })),
  admits(cls, { words }) {
    // No name holds every kept word (two of them share no name, search_name_pairs): the name tier is empty.
    return cls !== 0 || words.together;
  },
  narrow(cls) {
    return { column: SEARCH_TIERS[cls]!.column };
  },
  select(cls, { column, wordsSql, terms }) {
    const where = cls > 0 ? [`NOT b.${SEARCH_TIERS[cls - 1]!.column} @@ ${wordsSql.all()}`] : [];
    return { where, index: terms().map((t) => `b.${column} @@ ${t}`) };
  },
};
