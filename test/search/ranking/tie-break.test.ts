// The tie-break (src/search/ranking/tie-break.ts): what the rules left tied,
// products with a size in stock first, then the most popular, then the
// lowest id (search_order); on a catalogue in test/graphql/search-ranking.test.ts
// and below.
import { describe, expect, it } from 'vitest';
import { SearchProductsDocument, type SearchProductsQuery } from '../../../src/generated/graphql/operations/graphql.ts';
import { tieBreak } from '../../../src/search/ranking/tie-break.ts';
import { useTestCatalogue, useTestClient } from '../../support/catalogue-app.ts';
import { classes, resolved, scopeOf } from './scope.ts';

describe('the tie-break', () => {
  it('splits each level: the products with a size in stock, then the others', () => {
    expect(tieBreak.classes).toHaveLength(2);
    expect(tieBreak.admits(0, scopeOf(resolved(), classes()))).toBe(true);
    expect(tieBreak.admits(1, scopeOf(resolved(), classes({ 'tie-break': 1 })))).toBe(true);
    expect(tieBreak.select(0, scopeOf(resolved(), classes()))).toEqual({ where: [`b.sizes <> '{}'`] });
    expect(tieBreak.select(1, scopeOf(resolved(), classes({ 'tie-break': 1 })))).toEqual({ where: [`b.sizes = '{}'`] });
  });

  it('reads the sizes in stock, search_order and its runs', () => {
    expect(tieBreak.reads.map((r) => r.column)).toEqual(['sizes', 'search_order', 'search_bucket']);
  });

  describe('on a catalogue', () => {
    const catalogue = useTestCatalogue();
    const client = useTestClient(catalogue);

    it('puts a product with stock before a more popular one without, in the same classes of every other rule', async () => {
      const [popular, stocked] = (await catalogue.direct.rows<{ id: number }>(`INSERT INTO products (name, slogan, description, category, default_price)
        VALUES ('Vorpal Quillet', 'Made well', 'Warm.', 'Coats', 50), ('Vorpal Quillet', 'Made well', 'Warm.', 'Coats', 50) RETURNING id`)).map((r) => r.id);
      await catalogue.direct.rows(`INSERT INTO related (current_product_id, related_product_id) SELECT id, $1 FROM products ORDER BY id LIMIT 3`, [popular]);
      const [style] = await catalogue.direct.rows<{ id: number }>(`INSERT INTO styles (product_id, name, original_price, is_default) VALUES ($1, 'Plain', 50, true) RETURNING id`, [stocked]);
      await catalogue.direct.rows(`INSERT INTO skus (style_id, size, quantity) VALUES ($1, 'M', 4)`, [style!.id]);
      const response = await client.post(SearchProductsDocument, { query: 'vorpal quillet', first: 5 });
      const edges = (response.body.data as SearchProductsQuery).search.edges;
      expect(edges.map((edge) => Number(edge.node.id))).toEqual([stocked, popular]);
      expect(edges[0]!.rank).toBeGreaterThan(edges[1]!.rank);
      // Out of stock again, it falls back to popularity, then id.
      await catalogue.direct.rows(`UPDATE skus SET quantity = 0 WHERE style_id = $1`, [style!.id]);
      const again = (await client.post(SearchProductsDocument, { query: 'vorpal quillet', first: 5 })).body.data as SearchProductsQuery;
      expect(again.search.edges.map((edge) => Number(edge.node.id))).toEqual([popular, stocked]);
    });
  });
});
