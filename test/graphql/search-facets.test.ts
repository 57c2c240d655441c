// Search counts users can trust (src/search/facets/search-facets.ts,
// docs/browse.md "Facets"): totalCount and every facet count are exact up to
// COUNT_EXACT_UP_TO matches; past it they are lower bounds, never above the
// truth, and `exact` is false; a search for one or two common words alone
// starts from the counts kept for a lexeme every holder of which matches
// (search_word_facets, moved by every write): exact however many match
// when nothing else matches. A catalogue of 100,000 products (scale 0.1),
// so common words have more than 10,000 matches; every figure is compared
// with a count over the catalogue's own tables (products, features, styles,
// skus), not the browse read model the search reads.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchWithFacetsDocument, ShopFacetsDocument, type ShopFacetsQuery } from '../../src/generated/graphql/operations/graphql.ts';
import { PRICE_BANDS } from '../../src/catalog/browse/browse-statements.ts';
import { SEARCH_POSTINGS_SHARE } from '../../src/search/dictionary/resolve.ts';
import { COUNT_EXACT_UP_TO } from '../../src/search/facets/search-facets.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';

const catalogue = useTestCatalogue({ scale: 0.1, timeout: 600_000 });
const client = useTestClient(catalogue);

type Facets = ShopFacetsQuery['productFacets'];
interface Truth {
  total: number;
  categories: Map<string, number>;
  sizes: Map<string, number>;
  bands: number[];
}

/** A product's text as the truth searches it: its tables' words, not the browse read model's. */
const DOCUMENT = `to_tsvector('english', concat_ws(' ', p.name, p.category, p.slogan,
  (SELECT string_agg(f.value, ' ') FROM features f WHERE f.product_id = p.id), p.description))`;

// The documents are built once: making them is most of a count over the
// tables (seconds at this scale, and the tests count dozens of times). A
// write to a product or its features deletes the product's row (triggers),
// and a product without one is read from its tables again, so the truth
// still follows every write.
beforeAll(async () => {
  await catalogue.direct.rows(`
    CREATE TABLE truth_documents AS SELECT p.id, ${DOCUMENT} AS document FROM products p;
    ALTER TABLE truth_documents ADD PRIMARY KEY (id);
    CREATE INDEX ON truth_documents USING gin (document);
    CREATE FUNCTION truth_forget_product() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM truth_documents WHERE id IN (OLD.id, NEW.id); RETURN NULL; END $$;
    CREATE FUNCTION truth_forget_feature() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM truth_documents WHERE id IN (OLD.product_id, NEW.product_id); RETURN NULL; END $$;
    CREATE TRIGGER truth_forget AFTER INSERT OR UPDATE OR DELETE ON products FOR EACH ROW EXECUTE FUNCTION truth_forget_product();
    CREATE TRIGGER truth_forget AFTER INSERT OR UPDATE OR DELETE ON features FOR EACH ROW EXECUTE FUNCTION truth_forget_feature();
    ANALYZE truth_documents`);
}, 120_000);

/** The counts a search's tsquery (as `searched` shows it) has over the catalogue's tables, within `categories` if given, of products in stock if `inStock`. */
async function truth(searched: string, categories?: string[], inStock = false): Promise<Truth> {
  const rows = await catalogue.direct.rows<{ id: number; category: string; price: string; sizes: string[] }>(`
    WITH unbuilt AS MATERIALIZED (SELECT p.* FROM products p WHERE NOT EXISTS (SELECT 1 FROM truth_documents t WHERE t.id = p.id)),
    matching AS (
      SELECT id FROM truth_documents WHERE document @@ $1::tsquery
      UNION ALL
      SELECT p.id FROM unbuilt p WHERE ${DOCUMENT} @@ $1::tsquery)
    SELECT p.id, p.category, p.default_price::text AS price,
      ARRAY(SELECT DISTINCT k.size FROM styles s JOIN skus k ON k.style_id = s.id WHERE s.product_id = p.id AND k.quantity > 0) AS sizes
    FROM matching JOIN products p USING (id)`, [searched]);
  const count = (values: string[]) => values.reduce((map, v) => map.set(v, (map.get(v) ?? 0) + 1), new Map<string, number>());
  const stocked = inStock ? rows.filter((r) => r.sizes.length > 0) : rows;
  const within = categories ? stocked.filter((r) => categories.includes(r.category)) : stocked;
  const bands = PRICE_BANDS.map((min, i) => within.filter((r) => Number(r.price) >= Number(min) && (i === PRICE_BANDS.length - 1 || Number(r.price) < Number(PRICE_BANDS[i + 1]))).length);
  return { total: within.length, categories: count(stocked.map((r) => r.category)), sizes: count(within.flatMap((r) => r.sizes)), bands };
}

async function searched(query: string): Promise<string> {
  const response = await client.post<{ search: { searched: string } }>('query($q: String!) { search(query: $q, first: 1) { searched } }', { q: query });
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.search.searched;
}

async function facets(query: string, filter?: Record<string, unknown>): Promise<Facets> {
  const remembered = client.server.memo!.snapshot().hits;
  const response = await client.post(ShopFacetsDocument, { query, filter });
  expect(response.body.errors).toBeUndefined();
  // The words (unless resolved lately: the memo), the counts.
  expect(response.statements).toBe(client.server.memo!.snapshot().hits > remembered ? 1 : 2);
  return (response.body.data as ShopFacetsQuery).productFacets;
}

/** A Facets answer as the truth's shape, to compare whole. */
const asTruth = (counted: Facets): Truth => ({
  total: counted.total,
  categories: asMap(counted.categories),
  sizes: asMap(counted.sizes),
  bands: counted.priceBands.map((band) => band.count),
});

/** Whether the read model keeps a word's counts (prisma/functions/rebuild_search_word_facets.sql). */
async function kept(word: string): Promise<boolean> {
  return (await catalogue.direct.rows(`SELECT 1 FROM search_word_facets WHERE lexeme = $1 AND facet = 'total'`, [word])).length === 1;
}

/** The catalogue's words by how many products' documents hold them, as loaded (read once: the tests only pick words by them). */
let loadedWords: Promise<{ word: string; ndoc: number }[]> | undefined;
function words() {
  loadedWords ??= catalogue.direct.rows<{ word: string; ndoc: number }>(`
    SELECT word, ndoc FROM ts_stat('SELECT document FROM product_browse') WHERE word ~ '^[a-z]{4,}$' ORDER BY ndoc DESC, word`);
  return loadedWords;
}

const asMap = (counts: readonly { value: string; count: number }[]) => new Map(counts.map((c) => [c.value, c.count]));

/**
 * Counts read from the kept counts of a lexeme (`products` of them) plus the
 * search's other matches, as many as keep the total within
 * COUNT_EXACT_UP_TO, or up to COUNT_EXACT_UP_TO of them past it when they
 * are a word's rare other lexemes (`readPastCap`): exact when they all
 * fit; else lower bounds, never above the truth.
 */
function expectKeptPlusRest(counted: Facets, real: Truth, products: number, readPastCap: boolean) {
  const rest = real.total - products;
  expect(rest).toBeGreaterThanOrEqual(0);
  const readable = products <= COUNT_EXACT_UP_TO ? COUNT_EXACT_UP_TO - products : readPastCap ? COUNT_EXACT_UP_TO : 0;
  expect(counted.exact).toBe((products <= COUNT_EXACT_UP_TO || readPastCap) && rest <= readable);
  if (counted.exact) {
    expect(asTruth(counted)).toEqual(real);
    return;
  }
  expect(real.total).toBeGreaterThan(COUNT_EXACT_UP_TO);
  expect(counted.total).toBe(products + readable);
  for (const { value, count } of counted.categories) expect(count, value).toBeLessThanOrEqual(real.categories.get(value) ?? 0);
  for (const { value, count } of counted.sizes) expect(count, value).toBeLessThanOrEqual(real.sizes.get(value) ?? 0);
  counted.priceBands.forEach((band, i) => expect(band.count, band.min).toBeLessThanOrEqual(real.bands[i]!));
}

/** The lexemes of each ANDed term of a searched tsquery ("'tank' & ( 'top' | 'topcoat' )": [[tank], [top, topcoat]]). */
const termLexemes = (query: string) => query.split(' & ').map((term) => [...term.matchAll(/'([^']+)'/g)].map((m) => m[1]!));

/** Products of the commonest kept lexeme among `lexemes` (0: none kept), and how many of them are kept. */
async function commonestKept(lexemes: string[]): Promise<{ products: number; kept: number }> {
  const [row] = await catalogue.direct.rows<{ products: number | null; kept: number }>(
    `SELECT max(products) AS products, count(*)::int AS kept FROM search_word_facets WHERE facet = 'total' AND value = '' AND lexeme = ANY($1)`, [lexemes]);
  return { products: row?.products ?? 0, kept: row?.kept ?? 0 };
}

/**
 * A word more than twice COUNT_EXACT_UP_TO products hold whose search is
 * counted exactly from its kept counts: none of the other lexemes it is
 * searched as (completions, corrections) is kept.
 */
async function keptAlone(): Promise<{ word: string; ndoc: number }> {
  for (const word of (await words()).filter((w) => w.ndoc > COUNT_EXACT_UP_TO * 2)) {
    const [lexemes] = termLexemes(await searched(word.word));
    if ((await commonestKept(lexemes!)).kept === 1) return word;
  }
  throw new Error('no common word is searched as itself and rare words only');
}

/**
 * Creates a product from `input`, checks, applies each update in turn and
 * checks after it, deletes the product (also when a step fails) and checks
 * once more.
 */
async function followWrites(input: Record<string, unknown>, updates: Record<string, unknown>[], check: () => Promise<void>) {
  const created = await client.post<{ createProduct: { id: string } }>('mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }', { input });
  expect(created.body.errors).toBeUndefined();
  const id = created.body.data!.createProduct.id;
  try {
    await check();
    for (const update of updates) {
      const response = await client.post('mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }', { id, input: update });
      expect(response.body.errors).toBeUndefined();
      await check();
    }
  } finally {
    const deleted = await client.post('mutation ($id: ID!) { deleteProduct(id: $id) }', { id });
    expect(deleted.body.errors).toBeUndefined();
  }
  await check();
}

/** The kept pairs of words, commonest first. */
async function keptPairs() {
  return catalogue.direct.rows<{ lexeme: string; products: number }>(`
    SELECT lexeme, products FROM search_word_facets WHERE facet = 'total' AND lexeme ~ '^[a-z]{4,} [a-z]{4,}$' ORDER BY products DESC, lexeme`);
}

/** Kept lexemes that begin a few other lexemes of the dictionary, commonest first. */
async function keptPrefixes() {
  return catalogue.direct.rows<{ lexeme: string; products: number }>(`
    SELECT k.lexeme, k.products FROM search_word_facets k
    WHERE k.facet = 'total' AND k.lexeme ~ '^[a-z]{4,}$'
      AND (SELECT count(*) FROM search_lexemes l WHERE starts_with(l.lexeme, k.lexeme) AND strpos(l.lexeme, ' ') = 0 AND l.lexeme <> k.lexeme) BETWEEN 1 AND 5
    ORDER BY k.products DESC, k.lexeme`);
}

describe('search counts', () => {
  it('are exact up to COUNT_EXACT_UP_TO matches: total, categories, sizes, price bands', async () => {
    const word = (await words()).find((w) => w.ndoc > 2_000 && w.ndoc < COUNT_EXACT_UP_TO / 2)!;
    expect(word, 'a word with a few thousand matches').toBeDefined();
    const real = await truth(await searched(word.word));
    expect(real.total).toBeLessThanOrEqual(COUNT_EXACT_UP_TO);
    const counted = await facets(word.word);
    expect(counted.exact).toBe(true);
    expect(counted.total).toBe(real.total);
    expect(asMap(counted.categories)).toEqual(real.categories);
    expect(asMap(counted.sizes)).toEqual(real.sizes);
    expect(counted.priceBands.map((band) => band.count)).toEqual(real.bands);
    // totalCount of the search is the same count.
    const search = await client.post(SearchWithFacetsDocument, { query: word.word, first: 1 });
    expect(search.body.data?.search.totalCount).toBe(real.total);
  });

  it('of one common word alone are exact however many match, from the counts kept for it', async () => {
    const word = await keptAlone();
    expect(word, 'a word with more than 10,000 matches').toBeDefined();
    expect(await kept(word.word)).toBe(true);
    const real = await truth(await searched(word.word));
    expect(real.total).toBeGreaterThan(COUNT_EXACT_UP_TO);
    const counted = await facets(word.word);
    expect(counted.exact).toBe(true);
    expect(asTruth(counted)).toEqual(real);
  });

  it('of a common word that completes to other words too: its kept counts plus the others\' matches without it', async () => {
    // Kept lexemes that begin a few other lexemes (the last word is also searched as those, PREFIX_EXPANSION):
    // the commonest (past COUNT_EXACT_UP_TO products) and one with fewer.
    const candidates = await keptPrefixes();
    const common = candidates[0]!;
    const fewer = candidates.find((c) => c.products <= COUNT_EXACT_UP_TO)!;
    expect(common.products).toBeGreaterThan(COUNT_EXACT_UP_TO);
    expect(fewer, 'a kept word with at most 10,000 products that other words begin with').toBeDefined();
    for (const word of [common, fewer]) {
      const query = await searched(word.lexeme);
      expect(query).toContain('|');
      const [lexemes] = termLexemes(query);
      const { products, kept: keptLexemes } = await commonestKept(lexemes!);
      expectKeptPlusRest(await facets(word.lexeme), await truth(query), products, keptLexemes === 1);
    }
  });

  it('of two common words that names hold side by side: the kept counts of the pair (products holding both words), plus the other matches', async () => {
    // Pairs of words that names hold side by side in many products ('bright futur'); their rows count the products holding both words anywhere.
    const pairs = await keptPairs();
    expect(pairs.length).toBeGreaterThan(1);
    let alone = 0;
    for (const pair of pairs) {
      const query = await searched(pair.lexeme);
      const [first, second] = termLexemes(query);
      expect(second, query).toBeDefined();
      const real = await truth(query);
      const counted = await facets(pair.lexeme);
      if (query.includes(':*')) {
        // A word searched as a prefix (more completions than PREFIX_EXPANSION): counted from the matches.
        expect(counted.exact).toBe(real.total <= COUNT_EXACT_UP_TO);
        if (counted.exact) expect(asTruth(counted)).toEqual(real);
      } else if (first!.length === 1 && second!.length === 1) {
        // The search is just the two words: the kept counts are its counts, however many match.
        alone++;
        expect(pair.products, `${pair.lexeme}: ${query}`).toBe(real.total);
        expect(counted.exact).toBe(true);
        expect(asTruth(counted)).toEqual(real);
      } else {
        // Any lexeme of the first word beside any of the second (completions, corrections), either way round: the commonest kept answers.
        const implying = first!.flatMap((a) => second!.flatMap((b) => [`${a} ${b}`, `${b} ${a}`]));
        const { products } = await commonestKept(implying);
        expect(products).toBeGreaterThanOrEqual(pair.products);
        expectKeptPlusRest(counted, real, products, false);
      }
    }
    expect(alone, 'pairs searched as just their two words').toBeGreaterThan(0);
  });

  it('kept for a pair of words follow writes that add or remove either word, wherever it is', async () => {
    let pair: { lexeme: string } | undefined;
    for (const candidate of await keptPairs()) {
      if (!(await searched(candidate.lexeme)).includes('|')) { pair = candidate; break; }
    }
    expect(pair, 'a kept pair searched as just its two words').toBeDefined();
    const [a, b] = pair!.lexeme.split(' ');
    const check = async () => {
      const counted = await facets(pair!.lexeme);
      expect(counted.exact).toBe(true);
      expect(asTruth(counted)).toEqual(await truth(await searched(pair!.lexeme)));
    };
    // The words apart: in the name and in the description.
    await followWrites({ name: `Quillet ${a}`, slogan: 'counted', description: `a product with ${b} in it`, category: 'Zephyr Goods', defaultPrice: '12.34' }, [
      { category: 'Yonder Goods', defaultPrice: '999.00' },
      { description: 'without the second word' }, // one word left: no longer both
      { slogan: `${b} again` }, // both again
    ], check);
  });

  it('of a rare word are counted from its matches, exactly', async () => {
    const word = (await words()).find((w) => w.ndoc > 50 && w.ndoc < 500)!;
    expect(await kept(word.word)).toBe(false);
    const counted = await facets(word.word);
    expect(counted.exact).toBe(true);
    expect(asTruth(counted)).toEqual(await truth(await searched(word.word)));
  });

  it('kept for a word follow every write: a product created, changed in category, price and words, and deleted', async () => {
    const word = await keptAlone();
    const check = async () => expect(asTruth(await facets(word.word))).toEqual(await truth(await searched(word.word)));
    await followWrites({ name: `Quillet ${word.word}`, slogan: 'counted', description: 'a product for the kept counts', category: 'Zephyr Goods', defaultPrice: '12.34' }, [
      { category: 'Yonder Goods', defaultPrice: '999.00' },
      { name: 'Quillet', slogan: 'no longer', description: 'without the word' }, // the word leaves the product
      { name: `Quillet ${word.word}` }, // and comes back
    ], check);
  });

  it('kept for a word stay exact under 30 concurrent writers moving products that hold it between categories and prices', async () => {
    const word = await keptAlone();
    const ids = (await catalogue.direct.rows<{ id: number }>(
      `SELECT product_id AS id FROM product_browse WHERE document @@ to_tsquery('english', $1) ORDER BY product_id LIMIT 10`, [word.word])).map((r) => r.id);
    expect(ids).toHaveLength(10);
    const categories = ['Zephyr Goods', 'Yonder Goods', 'Quillet Goods'];
    const prices = ['12.00', '45.00', '150.00', '999.00'];
    const outcomes = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const response = await client.post('mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }', {
        id: String(ids[i % ids.length]), input: { category: categories[i % categories.length], defaultPrice: prices[i % prices.length] },
      });
      return response.body.errors?.[0]?.extensions?.code ?? 'ok';
    }));
    // Writers of one product take turns; one that cannot get its turn in time is refused whole (WRITE_CONTENTION), never half-applied.
    expect(outcomes.filter((o) => o !== 'ok' && o !== 'WRITE_CONTENTION')).toEqual([]);
    expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThan(0);
    expect(asTruth(await facets(word.word))).toEqual(await truth(await searched(word.word)));
  });

  it('past COUNT_EXACT_UP_TO matches counted from the matches are lower bounds, never above the truth, and say so', async () => {
    const word = (await words()).find((w) => w.ndoc > COUNT_EXACT_UP_TO * 2)!;
    expect(word, 'a word with more than 10,000 matches').toBeDefined();
    // With a filter the kept counts do not answer: the matches are counted.
    const real = await truth(await searched(word.word), undefined, true);
    expect(real.total).toBeGreaterThan(COUNT_EXACT_UP_TO);
    const counted = await facets(word.word, { inStock: true });
    expect(counted.exact).toBe(false);
    expect(counted.total).toBe(COUNT_EXACT_UP_TO);
    for (const { value, count } of counted.categories) expect(count, value).toBeLessThanOrEqual(real.categories.get(value) ?? 0);
    for (const { value, count } of counted.sizes) expect(count, value).toBeLessThanOrEqual(real.sizes.get(value) ?? 0);
    counted.priceBands.forEach((band, i) => expect(band.count, band.min).toBeLessThanOrEqual(real.bands[i]!));
    // The same matches counted every way: each product has one category and one price.
    expect(counted.categories.reduce((sum, c) => sum + c.count, 0)).toBe(counted.total);
    expect(counted.priceBands.reduce((sum, b) => sum + b.count, 0)).toBe(counted.total);
  });

  it('count a filtered search exactly when its matches are few, whatever the word\'s', async () => {
    const word = (await words()).find((w) => w.ndoc > COUNT_EXACT_UP_TO * 2)!;
    const real = await truth(await searched(word.word));
    const [category] = [...real.categories].filter(([, n]) => n > 0 && n <= COUNT_EXACT_UP_TO).sort((a, b) => a[1] - b[1]);
    expect(category).toBeDefined();
    const counted = await facets(word.word, { categories: [category![0]] });
    expect(counted.total).toBe(category![1]);
    const filtered = await truth(await searched(word.word), [category![0]]);
    expect(asMap(counted.sizes)).toEqual(filtered.sizes);
    expect(counted.priceBands.map((band) => band.count)).toEqual(filtered.bands);
  });

  it('are described in the schema with the bound the statement uses', () => {
    const sdl = fs.readFileSync(new URL('../../schema/browse.graphql', import.meta.url), 'utf8');
    expect(sdl).toContain(`at most ${COUNT_EXACT_UP_TO.toLocaleString('en-US')} matches`);
    expect(sdl).toContain('at least');
  });

  it('leave the commonest words out of a search of many common words, keeping the rarest, and say what was searched', async () => {
    const common = (await words()).slice(0, 8); // the eight words most products have
    const products = (await catalogue.direct.one<{ n: number }>('SELECT count(*)::int AS n FROM products')).n;
    expect(common.reduce((sum, w) => sum + w.ndoc, 0)).toBeGreaterThan(SEARCH_POSTINGS_SHARE * products);
    // Rarest first: the last word is also searched as a prefix, which counts the words it begins too.
    const terms = (await searched(common.map((w) => w.word).reverse().join(' '))).split(' & ').map((term) => term.replace(/^'|'(:\*)?$/g, ''));
    expect(terms.length).toBeLessThan(common.length);
    const rarest = [...common].sort((a, b) => a.ndoc - b.ndoc || (a.word < b.word ? -1 : 1))[0]!;
    expect(terms).toContain(rarest.word);
    const kept = common.filter((w) => terms.includes(w.word));
    if (kept.length > 1) expect(kept.reduce((sum, w) => sum + w.ndoc, 0)).toBeLessThanOrEqual(SEARCH_POSTINGS_SHARE * products * 1.05);
  });
});
