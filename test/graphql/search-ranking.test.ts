// The ranking rules as a contract (src/search/ranking/, docs/browse.md
// "Ranking"): on the test catalogue plus a few products of words no generated
// product has, every rule orders what the rules before it left tied, `rank`
// differs exactly when the rules put two results in different classes, and
// ties go to the most popular (related rows naming it), then the lowest id.
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchProductsDocument, type SearchProductsQuery } from '../../src/generated/graphql/operations/graphql.ts';
import { classesOf, levelOf, RANK_LEVELS, RANKING_RULES, rankOf } from '../../src/search/ranking/rules.ts';
import { SEARCH_TIERS } from '../../src/search/ranking/attribute.ts';
import { PREFIX_EXPANSION } from '../../src/search/dictionary/resolve.ts';
import { useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { searchQuality } from '../../bench/lib/search-quality.ts';
import { searchWords } from '../../src/catalog/browse/browse-input.ts';
import { resolveStatement } from '../../src/search/dictionary/resolve.ts';
import { type Matching, type Resolved, resolvedOf } from '../../src/search/dictionary/resolved.ts';
import { searchStatement } from '../../src/search/bucket-sort.ts';

const catalogue = useTestCatalogue();
const client = useTestClient(catalogue);

type Edge = SearchProductsQuery['search']['edges'][number];

async function searchAll(query: string): Promise<{ edges: Edge[]; searched: string | null | undefined }> {
  const edges: Edge[] = [];
  let after: string | undefined;
  let searched: string | null | undefined;
  for (let page = 0; page < 100; page++) {
    const response = await client.post(SearchProductsDocument, { query, first: 3, after });
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    const search = (response.body.data as SearchProductsQuery).search;
    searched = search.searched;
    edges.push(...search.edges);
    if (!search.pageInfo.hasNextPage) return { edges, searched };
    after = search.pageInfo.endCursor!;
  }
  throw new Error('more than 100 pages');
}

/** Products of words no generated product has, each named for what it shows. */
const PRODUCTS = {
  whole: { name: 'Quorvel Plinth', slogan: 'Made well', description: 'Warm.' },
  wholeWithStopWord: { name: 'The Quorvel Plinths', slogan: 'Made well', description: 'Warm.' },
  adjacent: { name: 'Quorvel Plinth Jacket', slogan: 'Made well', description: 'Warm.' },
  completed: { name: 'Quorvel Plinthwick', slogan: 'Made well', description: 'Warm.' },
  apartPopular: { name: 'Quorvel Heavy Plinth', slogan: 'Made well', description: 'Warm.' },
  apart: { name: 'Plinth by Quorvel', slogan: 'Made well', description: 'Warm.' },
  inSlogan: { name: 'Quorvel Coat', slogan: 'A plinth of a coat', description: 'Warm.' },
  inDescription: { name: 'Basic Coat', slogan: 'Made well', description: 'The quorvel plinth of coats.' },
  misspeltInData: { name: 'Basic Vest', slogan: 'Made well', description: 'A quorvle for the plinth.' },
} as const;
type Key = keyof typeof PRODUCTS;
const ids = {} as Record<Key, number>;
const byId = (edges: Edge[]) => edges.map((edge) => Number(edge.node.id));
const keysOf = (edges: Edge[]) => byId(edges).map((id) => (Object.keys(ids) as Key[]).find((key) => ids[key] === id) ?? id);

beforeAll(async () => {
  for (const [key, product] of Object.entries(PRODUCTS) as [Key, (typeof PRODUCTS)[Key]][]) {
    const row = await catalogue.direct.one<{ id: number }>(
      `INSERT INTO products (name, slogan, description, category, default_price) VALUES ($1, $2, $3, 'Coats', 50) RETURNING id`,
      [product.name, product.slogan, product.description]);
    ids[key] = row.id;
  }
  // Popularity: two related rows name apartPopular, none the others (their ties go to the lowest id).
  await catalogue.direct.rows(`INSERT INTO related (current_product_id, related_product_id) SELECT id, $1 FROM products ORDER BY id LIMIT 2`, [ids.apartPopular]);
  // The dictionary's counts as a load makes them (words written later start at 0): "quorvel" in 20 times as many documents as "quorvle" (stem 'quorvl').
  await catalogue.direct.rows(`UPDATE search_lexemes SET documents = CASE lexeme WHEN 'quorvel' THEN 200 ELSE 1 END WHERE lexeme IN ('quorvel', 'quorvl')`);
});

/** A search's words resolved (resolveStatement) straight on the test catalogue: no memo. */
async function resolve(query: string): Promise<Resolved> {
  const statement = resolveStatement(searchWords(query));
  return resolvedOf((await catalogue.direct.rows<Parameters<typeof resolvedOf>[0] & object>(statement.text, statement.values))[0])!;
}

/** The first 50 results of a resolution, and how many levels its statement reads. */
async function page(resolved: Resolved) {
  const statement = searchStatement(resolved, {}, undefined, 50, { snippets: true });
  const rows = await catalogue.direct.rows<{ id: number; name: string; sortKey: string }>(statement.text, statement.values);
  return { levels: statement.text.match(/SELECT \d+ AS level/g)!.length, rows };
}

/** The resolution as if the dictionaries said `assumed` of its words, with and without corrections: every level such a shortcut leaves out is read. */
const assuming = (resolved: Resolved, assumed: Partial<Pick<Matching, 'adjacent' | 'together'>>): Resolved => ({
  ...resolved,
  searched: { ...resolved.searched, ...assumed },
  uncorrected: resolved.uncorrected && { ...resolved.uncorrected, ...assumed },
});

describe('the ranking rules', () => {
  it('put the exact name first, adjacent words above the same words apart, a name match above a description match', async () => {
    const { edges } = await searchAll('quorvel plinth');
    expect(keysOf(edges)).toEqual([
      'whole', 'wholeWithStopWord', // exactness: the whole name (stop words and plurals as searched), popularity tied: lowest id
      'adjacent', // proximity: the words next to each other in the name
      'completed', // exactness: "plinth" completed to "plinthwick" ranks after the words as typed
      'apartPopular', 'apart', // the same words apart; tie-break: the more popular first
      'inSlogan', // attribute: name and slogan after name alone
      'inDescription', // attribute: the description last, though its words are adjacent there
    ]);
    const rank = (key: Key) => edges.find((edge) => Number(edge.node.id) === ids[key])!.rank;
    expect(rank('whole')).toBe(1);
    expect(rank('wholeWithStopWord')).toBe(rank('whole'));
    expect(rank('apartPopular')).toBe(rank('apart'));
    const ranks = edges.map((edge) => edge.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    // Every other neighbour differs by a rule.
    expect(new Set(ranks).size).toBe(ranks.length - 2);
  });

  it('rank a word as typed above its correction (typo), and the words in the order typed above the reverse (proximity)', async () => {
    // "quorvle" is in one description (a misspelling in the data): it is searched with its much commoner correction.
    const typo = await searchAll('quorvle plinth');
    expect(typo.searched).toContain(`'quorvl'`);
    expect(typo.searched).toContain(`'quorvel'`);
    expect(keysOf(typo.edges)[0]).toBe('misspeltInData');
    expect(typo.edges[0]!.rank).toBeGreaterThan(typo.edges[1]!.rank);
    expect(new Set(keysOf(typo.edges))).toEqual(new Set(Object.keys(PRODUCTS)));
    // Typed the other way round, the name that has them in that order comes first: "Plinth by Quorvel" (the stop word
    // drops out as it does from a query, so it is the whole name), and the former first is now apart.
    const reversed = await searchAll('plinth quorvel');
    expect(keysOf(reversed.edges)[0]).toBe('apart');
    expect(keysOf(reversed.edges).indexOf('whole')).toBeGreaterThan(keysOf(reversed.edges).indexOf('apart'));
    expect(reversed.edges.find((edge) => Number(edge.node.id) === ids.whole)!.rank).toBeLessThan(1);
  });

  it('put the whole name as corrected first among results that need a correction (exactness within typo)', async () => {
    // "qourvel" is no word of the catalogue: corrected to 'quorvel' (two letters swapped), every result needs the correction.
    const { edges, searched } = await searchAll('qourvel plinth');
    expect(searched).toContain(`'quorvel'`);
    expect(keysOf(edges).slice(0, 2)).toEqual(['whole', 'wholeWithStopWord']);
    const rank = (key: Key) => edges.find((edge) => Number(edge.node.id) === ids[key])!.rank;
    expect(rank('whole')).toBeGreaterThan(rank('adjacent'));
    expect(rank('wholeWithStopWord')).toBe(rank('whole'));
  });

  it('leave out the levels of adjacent words when no name holds them adjacent (a pair the dictionary lacks), with the same answer', async () => {
    const cases = [
      ['plinth quorvel', true, true], // "Plinth by Quorvel": the stop word does not count
      ['coat quorvel', false, false], // "Quorvel Coat" has them the other way round
      ['quorvle plinth', true, false], // adjacent once corrected ("Quorvel Plinth"), not as typed
    ] as const;
    for (const [query, adjacent, adjacentAsTyped] of cases) {
      const resolved = await resolve(query);
      expect([resolved.searched.adjacent, resolved.uncorrected?.adjacent], query).toEqual([adjacent, adjacentAsTyped]);
      // The name tier read either way (search_name_pairs leaves it out when two words share no name: the next test).
      const inNames = assuming(resolved, { together: true });
      const every = assuming(inNames, { adjacent: true });
      const [skipping, reading] = [await page(inNames), await page(every)];
      expect(skipping.rows.length, query).toBeGreaterThan(0);
      expect(skipping.rows, query).toEqual(reading.rows);
      if (!adjacentAsTyped) expect(skipping.levels, query).toBeLessThan(reading.levels);
    }
  });

  it('leave out the name tier when two kept words share no name (search_name_pairs), with the same answer, and read it once a write puts them together', async () => {
    // The dictionary holds every two words of every name, whether the loader or the triggers wrote the row.
    const missing = async () => (await catalogue.direct.one<{ missing: number; names: number }>(`
      SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM search_name_pairs p WHERE p.pair = a || ' ' || b))::int AS missing, count(DISTINCT w.product_id)::int AS names
      FROM (SELECT b.product_id, ARRAY(SELECT l FROM unnest(tsvector_to_array(b.match_a)) l WHERE strpos(l, ' ') = 0) AS lexemes FROM product_browse b) w,
        unnest(w.lexemes) a, unnest(w.lexemes) b WHERE a <> b`));
    expect(await missing()).toMatchObject({ missing: 0, names: expect.any(Number) });
    expect((await missing()).names).toBeGreaterThan(Object.keys(PRODUCTS).length);
    const cases = [
      ['quorvel coat', true, true], // "Quorvel Coat"
      ['plinth warm', false, false], // 'warm' is in descriptions only
      ['quorvle plinth', true, false], // together once corrected ("Quorvel Plinth"), 'quorvle' is in a description only
      ['quorvel plin', true, true], // completed: "Quorvel Plinth"
    ] as const;
    for (const [query, together, togetherAsTyped] of cases) {
      const resolved = await resolve(query);
      expect([resolved.searched.together, resolved.uncorrected?.together], query).toEqual([together, togetherAsTyped]);
      const every = assuming(resolved, { together: true });
      const [skipping, reading] = [await page(resolved), await page(every)];
      expect(skipping.rows.length, query).toBeGreaterThan(0);
      expect(skipping.rows, query).toEqual(reading.rows);
      if (!togetherAsTyped) expect(skipping.levels, query).toBeLessThan(reading.levels);
    }
    // A product renamed so that its name holds both words: its pairs are added by the write, and the name tier is read.
    const { id } = await catalogue.direct.one<{ id: number }>(`INSERT INTO products (name, slogan, description, category, default_price) VALUES ('Anorak', 'Made well', 'Dry.', 'Coats', 50) RETURNING id`);
    try {
      await catalogue.direct.rows(`UPDATE products SET name = 'Plinth Warm Anorak' WHERE id = $1`, [id]);
      expect(await missing()).toMatchObject({ missing: 0 });
      const resolved = await resolve('plinth warm');
      expect(resolved.searched.together).toBe(true);
      const [first] = (await page(resolved)).rows;
      expect(first!.id).toBe(id);
      expect(classesOf(Number(first!.sortKey.split('.')[0])).attribute).toBe(0);
    } finally {
      await catalogue.direct.rows(`DELETE FROM products WHERE id = $1`, [id]);
    }
  });

  it('read the name tier when one word of a name matches two searched words (the same stem, a completion or a prefix of it), with the same answer', async () => {
    // More than PREFIX_EXPANSION words start with 'quix' (so it is searched as a prefix), each a product's whole name.
    const quix = await catalogue.direct.rows<{ id: number }>(`INSERT INTO products (name, slogan, description, category, default_price)
      SELECT 'Quix' || chr(97 + i), 'Made well', 'Dry.', 'Coats', 50 FROM generate_series(0, $1::int) i RETURNING id`, [PREFIX_EXPANSION]);
    try {
      // search_name_pairs holds pairs of two different words: none of these names has one of the searched words.
      for (const [query, name] of [['plinths plinth', 'Quorvel Plinth'], ['plinth plin', 'Quorvel Plinth'], ['quixa quix', 'Quixa']] as const) {
        const resolved = await resolve(query);
        expect(resolved.searched.terms, query).toHaveLength(2); // both words searched, none left out by the cost budget
        const every = assuming(resolved, { together: true });
        const { rows } = await page(resolved);
        expect(rows, query).toEqual((await page(every)).rows);
        expect(rows.map((row) => row.name), query).toContain(name);
        expect(classesOf(Number(rows[0]!.sortKey.split('.')[0])).attribute, query).toBe(0);
      }
    } finally {
      await catalogue.direct.rows(`DELETE FROM products WHERE id = ANY($1)`, [quix.map((row) => row.id)]);
    }
  });

  it('give the same rank to results in the same classes and tie-break by popularity, then id', async () => {
    const { edges } = await searchAll('quorvel');
    // One word: the whole name (none is just "Quorvel"), then names holding it, then slogans, descriptions.
    const inName = edges.filter((edge) => edge.node.name.toLowerCase().includes('quorvel'));
    expect(new Set(inName.map((edge) => edge.rank)).size).toBe(1);
    expect(byId(inName)).toEqual([ids.apartPopular, ...byId(inName).filter((id) => id !== ids.apartPopular).sort((a, b) => a - b)]);
  });

  it('are declared once: the levels follow RANKING_RULES, and each tier column holds the declared fields', async () => {
    expect(RANK_LEVELS).toBe(RANKING_RULES.reduce((n, rule) => n * rule.classes.length, 1));
    for (let level = 0; level < RANK_LEVELS; level++) expect(levelOf(classesOf(level))).toBe(level);
    expect(rankOf(0)).toBe(1);
    // The columns refresh_product_browse builds hold exactly the words of the declared fields.
    const fields: Record<string, string> = {
      name: 'p.name', category: 'p.category', slogan: 'p.slogan',
      features: `coalesce((SELECT string_agg(f.value, ' ' ORDER BY f.id) FROM features f WHERE f.product_id = p.id), '')`, description: 'p.description',
    };
    for (const tier of SEARCH_TIERS) {
      const words = `to_tsvector('english', concat_ws(' ', ${tier.fields.map((f) => fields[f]).join(', ')}))`;
      const [row] = await catalogue.direct.rows<{ differ: number }>(`
        SELECT count(*)::int AS differ FROM products p JOIN product_browse b ON b.product_id = p.id
        WHERE ARRAY(SELECT x FROM unnest(tsvector_to_array(b.${tier.column})) x WHERE strpos(x, ' ') = 0 ORDER BY x)
           <> ARRAY(SELECT x FROM unnest(tsvector_to_array(${words})) x ORDER BY x)`);
      expect(row!.differ, tier.column).toBe(0);
    }
  });

  it('score on the judged query set the bench reports: every kind of query, exact names first', async () => {
    const quality = await searchQuality(catalogue.db.url);
    expect(quality.queries).toBeGreaterThanOrEqual(50);
    expect(Object.keys(quality.byKind).sort()).toEqual(['adjacent words', 'category', 'description word', 'exact name', 'misspelt', 'non-ASCII', 'prefix', 'words apart']);
    expect(quality.exactNameHitAt1).toBe(1);
    expect(quality.ndcg10).toBeGreaterThan(0.85);
  });
});
