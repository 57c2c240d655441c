// Search quality: a judged query set made from the generator's vocabulary and
// the names of a catalogue it generated, each result graded against the
// catalogue's own tables (not the browse read model the search reads), and
// NDCG@10 and hit@1 of the search's answers (the same CatalogBrowse path the
// API resolvers take). `npm run bench` prints it for the sample catalogue
// (scale 0.01, in `<database>_search_quality`); test/graphql/search-ranking.test.ts
// checks the rules it rewards.
//
// Grades (what a shopper typing the query wants, best first):
//   4  the product's whole name is the query's words
//   3  the words stand in the name in the order typed, next to each other
//   2  every word is in the name
//   1  every word is in the product's text (category, slogan, features, description)
// A misspelt query is graded for the word meant; a prefix for the words it begins.
import pg from 'pg';
import { CatalogBrowse } from '../../src/catalog/browse/browse.ts';
import { searchWords } from '../../src/catalog/browse/browse-input.ts';
import { poolReads } from '../../src/db/reads/read-routes.ts';
import { CATEGORIES, NAME_PARTS, REAL_PLACES, THINGS } from '../../src/etl/generate/vocabulary.ts';

export type QueryKind = 'exact name' | 'adjacent words' | 'words apart' | 'misspelt' | 'prefix' | 'category' | 'description word' | 'non-ASCII';

export interface JudgedQuery {
  kind: QueryKind;
  /** What is sent. */
  query: string;
  /** The words meant (a misspelt word corrected), as a shopper would grade. */
  meant: string;
  /** The last word meant is a prefix. */
  prefix: boolean;
}

const text = `concat_ws(' ', p.name, p.category, p.slogan, p.description, (SELECT string_agg(f.value, ' ') FROM features f WHERE f.product_id = p.id))`;

/** Each product's grade for a query (only products graded above 0). A prefix query is one word: the words it begins. */
export async function grades(client: pg.ClientBase, judged: JudgedQuery): Promise<Map<number, number>> {
  const words = judged.prefix ? `to_tsquery('simple', $2 || ':*')` : `plainto_tsquery('english', $2)`;
  const phrase = judged.prefix ? words : `phraseto_tsquery('english', $2)`;
  const { rows } = await client.query<{ id: number; grade: number }>(`
    SELECT p.id, CASE
        WHEN NOT $1 AND lower(btrim(regexp_replace(p.name, '[^[:alnum:]]+', ' ', 'g'))) = $2 THEN 4
        WHEN to_tsvector('english', p.name) @@ ${phrase} THEN 3
        WHEN to_tsvector('english', p.name) @@ ${words} THEN 2
        ELSE 1 END AS grade
    FROM products p WHERE to_tsvector('english', ${text}) @@ ${words}`, [judged.prefix, judged.meant]);
  return new Map(rows.map((row) => [row.id, row.grade]));
}

/** Deterministic picks (the same set every run on the same catalogue). */
function every<T>(values: readonly T[], count: number): T[] {
  if (values.length <= count) return [...values];
  return Array.from({ length: count }, (_, i) => values[Math.floor((i * values.length) / count)]!);
}

const plain = (word: string) => /^[\p{L}\p{N}]+$/u.test(word);
const swapped = (word: string) => `${word.slice(0, 2)}${word[3]}${word[2]}${word.slice(4)}`;

/**
 * At least 50 queries: exact names, two words of a name next to each other
 * and apart, a misspelt word (third and fourth letters swapped), a prefix, a
 * category, a word only descriptions have, a word with accents.
 */
export async function judgedQueries(client: pg.ClientBase): Promise<JudgedQuery[]> {
  // Names as the catalogue holds them, each once, in a stable order: those of plain words only.
  const { rows } = await client.query<{ name: string }>(`SELECT DISTINCT name FROM products ORDER BY name`);
  const names = rows.map((r) => r.name).filter((name) => name.split(' ').every(plain) && !/\d/.test(name));
  const withWords = (n: number) => names.filter((name) => name.split(' ').length >= n);
  const queries: JudgedQuery[] = [];
  const add = (kind: QueryKind, query: string, meant = query, prefix = false) => queries.push({ kind, query, meant: meant.toLowerCase(), prefix });
  for (const name of every(withWords(2), 12)) add('exact name', name.toLowerCase());
  for (const name of every(withWords(3), 8)) add('adjacent words', name.split(' ').slice(-2).join(' ').toLowerCase());
  for (const name of every(withWords(3), 8)) { const w = name.toLowerCase().split(' '); add('words apart', `${w[0]} ${w.at(-1)}`); }
  const nouns = [...new Set(Object.values(NAME_PARTS.nouns).flat().map((n) => n.split(' ').at(-1)!.toLowerCase()))].filter((n) => /^[a-z]{6,}$/.test(n)).sort();
  for (const noun of every(nouns, 6)) add('misspelt', swapped(noun), noun);
  for (const noun of every(nouns.slice(3), 6)) add('prefix', noun.slice(0, 4), noun.slice(0, 4), true);
  for (const category of every(CATEGORIES, 5)) add('category', category.toLowerCase());
  // Words of the descriptions' vocabulary no name holds.
  const { rows: described } = await client.query<{ word: string }>(`
    SELECT w AS word FROM unnest($1::text[]) AS w
    WHERE NOT EXISTS (SELECT 1 FROM products p WHERE to_tsvector('english', p.name) @@ plainto_tsquery('english', w))
      AND EXISTS (SELECT 1 FROM products p WHERE to_tsvector('english', p.description) @@ plainto_tsquery('english', w))
    ORDER BY w LIMIT 5`, [every(THINGS.filter((t) => /^[a-z]{5,}$/.test(t)), 40)]);
  for (const { word } of described) add('description word', word);
  for (const place of every(REAL_PLACES.filter((p) => /[^\x00-\x7F]/.test(p) && plain(p)), 5)) add('non-ASCII', place.toLowerCase());
  return queries;
}

export interface QualityResult {
  queries: number;
  ndcg10: number;
  /** Exact-name queries whose first result is a product of that name. */
  exactNameHitAt1: number;
  byKind: Record<string, { queries: number; ndcg10: number }>;
}

const dcg = (gains: number[]) => gains.slice(0, 10).reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);

/** NDCG@10 of the search's first page for every judged query, on the catalogue at `url`. */
export async function searchQuality(url: string): Promise<QualityResult> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const browse = new CatalogBrowse(poolReads(pool));
  const client = await pool.connect();
  try {
    const judged = await judgedQueries(client);
    const byKind: Record<string, { queries: number; sum: number }> = {};
    let sum = 0;
    let exactHits = 0;
    let exactQueries = 0;
    for (const query of judged) {
      const graded = await grades(client, query);
      const resolved = await browse.resolve(searchWords(query.query));
      const page = await browse.search(resolved, {}, 10, undefined);
      const gains = page.edges.map((edge) => graded.get(Number(edge.node.id)) ?? 0);
      const ideal = dcg([...graded.values()].sort((a, b) => b - a));
      const ndcg = ideal === 0 ? 0 : dcg(gains) / ideal;
      sum += ndcg;
      const kind = (byKind[query.kind] ??= { queries: 0, sum: 0 });
      kind.queries++;
      kind.sum += ndcg;
      if (query.kind === 'exact name') {
        exactQueries++;
        if (gains[0] === 4) exactHits++;
      }
    }
    return {
      queries: judged.length,
      ndcg10: sum / judged.length,
      exactNameHitAt1: exactQueries === 0 ? 0 : exactHits / exactQueries,
      byKind: Object.fromEntries(Object.entries(byKind).map(([kind, k]) => [kind, { queries: k.queries, ndcg10: k.sum / k.queries }])),
    };
  } finally {
    client.release();
    await pool.end();
  }
}

/** The figures as the bench prints them. */
export function formatQuality(result: QualityResult): string {
  const kinds = Object.entries(result.byKind).map(([kind, k]) => `${kind} ${k.ndcg10.toFixed(3)} (${k.queries})`).join(', ');
  return `search quality, ${result.queries} judged queries on the scale-0.01 catalogue: NDCG@10 ${result.ndcg10.toFixed(3)}, `
    + `exact name first ${Math.round(result.exactNameHitAt1 * 100)}%; by kind: ${kinds}`;
}
