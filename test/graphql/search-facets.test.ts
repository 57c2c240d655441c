// Search facets of a common word are estimates from a sample of its matches
// (src/catalog/browse-statements.ts, docs/browse.md); of a rarer one, exact.
// A catalogue of 10,000 products, so a common word's sample holds more than
// EXACT_SAMPLE_MATCHES matches; every figure is compared with a count over
// the catalogue's own search documents.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ShopFacetsDocument, type ShopFacetsQuery } from '../../src/generated/graphql/operations/graphql.ts';
import { EXACT_SAMPLE_MATCHES, FACET_SAMPLE_MODULUS, SEARCH_POSTINGS_SHARE } from '../../src/catalog/browse-statements.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue({ scale: 0.01, timeout: 180_000 });
const client = useTestClient(catalogue);

/** The true counts per category of a tsquery's matches, and how many of them the sample holds. */
async function truth(searched: string) {
  const rows = await catalogue.direct.rows<{ category: string; n: number; sampled: number }>(`
    SELECT category, count(*)::int AS n, count(*) FILTER (WHERE product_id % ${FACET_SAMPLE_MODULUS} = 0)::int AS sampled
    FROM product_browse WHERE document @@ $1::tsquery GROUP BY category`, [searched]);
  return { byCategory: new Map(rows.map((r) => [r.category, r.n])), total: rows.reduce((sum, r) => sum + r.n, 0), sampled: rows.reduce((sum, r) => sum + r.sampled, 0) };
}

async function facets(query: string) {
  const response = await client.post(ShopFacetsDocument, { query });
  expect(response.body.errors).toBeUndefined();
  expect(response.statements).toBe(2); // the words, the facets
  return (response.body.data as ShopFacetsQuery).productFacets;
}

/** The words of the catalogue's documents by how many products have them, most first, with how many of the sample do. */
async function words() {
  return catalogue.direct.rows<{ word: string; ndoc: number; sampled: number }>(`
    SELECT s.word, s.ndoc, coalesce(t.ndoc, 0) AS sampled
    FROM ts_stat('SELECT document FROM product_browse') s
    LEFT JOIN ts_stat('SELECT document FROM product_browse WHERE product_id % ${FACET_SAMPLE_MODULUS} = 0') t USING (word)
    WHERE s.word ~ '^[a-z]+$' ORDER BY s.ndoc DESC, s.word`);
}

describe('search facets', () => {
  it('estimates a common word from its sample, within three standard errors, and says so', async () => {
    const common = (await words()).find((w) => w.sampled > EXACT_SAMPLE_MATCHES * 1.5);
    expect(common, 'a word common enough to be sampled').toBeDefined();
    const { searched } = (await client.post<{ search: { searched: string } }>('query($q: String!) { search(query: $q, first: 1) { searched } }', { q: common!.word })).body.data!.search;
    const real = await truth(searched);
    expect(real.sampled).toBeGreaterThan(EXACT_SAMPLE_MATCHES);
    const estimated = await facets(common!.word);
    expect(estimated.exact).toBe(false);
    // Each sampled match stands for FACET_SAMPLE_MODULUS products; a count of k
    // sampled matches is off by about sqrt(k) of them.
    const bound = (sampled: number) => 3 * FACET_SAMPLE_MODULUS * Math.sqrt(Math.max(sampled, 1));
    expect(Math.abs(estimated.total - real.total)).toBeLessThanOrEqual(bound(real.sampled));
    expect(estimated.total % FACET_SAMPLE_MODULUS).toBe(0);
    for (const { value, count } of estimated.categories) {
      const actual = real.byCategory.get(value) ?? 0;
      expect(Math.abs(count - actual), value).toBeLessThanOrEqual(bound(count / FACET_SAMPLE_MODULUS));
    }
  });

  it('counts a word with few sampled matches exactly', async () => {
    const rare = (await words()).find((w) => w.sampled > 0 && w.sampled <= EXACT_SAMPLE_MATCHES / 2 && w.ndoc > 20);
    expect(rare).toBeDefined();
    const { searched } = (await client.post<{ search: { searched: string } }>('query($q: String!) { search(query: $q, first: 1) { searched } }', { q: rare!.word })).body.data!.search;
    const real = await truth(searched);
    const counted = await facets(rare!.word);
    expect(counted.exact).toBe(true);
    expect(counted.total).toBe(real.total);
    expect(new Map(counted.categories.map((c) => [c.value, c.count]))).toEqual(real.byCategory);
  });

  it('is described in the schema with the constants the statement uses', () => {
    const sdl = fs.readFileSync(new URL('../../schema/browse.graphql', import.meta.url), 'utf8');
    expect(sdl).toContain(`at most ${EXACT_SAMPLE_MATCHES} of the products with an id divisible by ${FACET_SAMPLE_MODULUS}`);
    expect(sdl).toContain(`(each counting for ${FACET_SAMPLE_MODULUS})`);
  });

  it('leaves the commonest words out of a search of many common words, keeping the rarest, and says what it searched', async () => {
    const common = (await words()).slice(0, 8); // the eight words most products have
    const products = (await catalogue.direct.one<{ n: number }>('SELECT count(*)::int AS n FROM products')).n;
    expect(common.reduce((sum, w) => sum + w.ndoc, 0)).toBeGreaterThan(SEARCH_POSTINGS_SHARE * products);
    // Rarest first: the last word is also searched as a prefix, which counts the words it begins too.
    const response = await client.post<{ search: { searched: string } }>('query($q: String!) { search(query: $q, first: 5) { searched } }', { q: common.map((w) => w.word).reverse().join(' ') });
    expect(response.body.errors).toBeUndefined();
    const searched = response.body.data!.search.searched.split(' & ').map((term) => term.replace(/^'|'(:\*)?$/g, ''));
    expect(searched.length).toBeLessThan(common.length);
    // The rarest of them is always searched; what is kept fits the budget (or is that one word).
    const rarest = [...common].sort((a, b) => a.ndoc - b.ndoc || (a.word < b.word ? -1 : 1))[0]!;
    expect(searched).toContain(rarest.word);
    const kept = common.filter((w) => searched.includes(w.word));
    if (kept.length > 1) expect(kept.reduce((sum, w) => sum + w.ndoc, 0)).toBeLessThanOrEqual(SEARCH_POSTINGS_SHARE * products * 1.05);
  });
});
