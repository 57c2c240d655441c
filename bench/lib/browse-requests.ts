// The requests of the browse scenarios (graphql-category-page, graphql-search,
// graphql-facets, graphql-deep-keyset, and the facets of one kind of search
// text each, graphql-facets-<kind>): GraphQL bodies drawn from the catalogue
// generator's words and from the bench catalogue itself (deep cursors, and
// the words of its product names for the kinds), written one per line to a file that the wrk scripts, the k6
// scenarios and the SQL sampling all read (BROWSE_REQUESTS), so each sends
// exactly the same mix. Operations come from k6/operations.graphql.
import fs from 'node:fs';
import path from 'node:path';
import { encodeCursor } from '../../src/catalog/browse/browse-cursor.ts';
import { ADJECTIVES, CATEGORIES, NOUNS, sizesFor } from '../../src/etl/generate/vocabulary.ts';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import { operationsByName } from '../../k6/lib/operation-text.ts';

/** The kinds of search text whose facets are measured one kind at a time (searchTextKinds). */
export const FACET_KINDS = ['two-common', 'common-rare', 'misspelt', 'prefix', 'filtered'] as const;
type FacetKind = (typeof FACET_KINDS)[number];
export const BROWSE_SCENARIOS = ['graphql-category-page', 'graphql-search', 'graphql-facets', 'graphql-deep-keyset',
  ...FACET_KINDS.map((kind) => `graphql-facets-${kind}` as const)] as const;
export type BrowseScenario = (typeof BROWSE_SCENARIOS)[number];
/** Bodies per scenario: enough variety that the response cache (when on) does not answer them all. */
const COUNT = 400;

const OPERATIONS = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../../k6/operations.graphql'), 'utf8'));

let seed = 1;

/** Starts the choices over from `value`: the same bodies are drawn again. */
export function reseedBrowseChoices(value = 1): void {
  seed = value;
}
/** Deterministic choices, so every run sends the same mix. */
function pick<T>(values: readonly T[]): T {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  // The high bits: an LCG's low bits repeat with a short period (seed % 4
  // cycles through four values), which sent 50 of 400 facet requests with
  // no search and every category page for one of two categories.
  return values[Math.floor((seed / 2 ** 31) * values.length)] as T;
}

function body(operationName: string, variables: Record<string, unknown>): string {
  const query = OPERATIONS.get(operationName);
  if (!query) throw new Error(`k6/operations.graphql has no operation ${operationName}`);
  return JSON.stringify({ query, variables, operationName });
}

/** A shop's category page: a category, in stock, sometimes on sale, a size or a price range, sorted by price or name. */
export function categoryPage(): string {
  const category = pick(CATEGORIES);
  const filter: Record<string, unknown> = { categories: [category], inStock: true };
  if (pick([true, false])) filter.onSale = true;
  const refine = pick(['size', 'price', 'none']);
  if (refine === 'size') filter.sizes = [pick(sizesFor(category))];
  if (refine === 'price') Object.assign(filter, pick([{ priceMin: '10.00', priceMax: '50.00' }, { priceMin: '50.00', priceMax: '100.00' }, { priceMin: '75.00' }]));
  const orderBy = pick([{ field: 'PRICE', direction: 'ASC' }, { field: 'PRICE', direction: 'DESC' }, { field: 'NAME', direction: 'ASC' }, { field: 'CREATED_AT', direction: 'DESC' }]);
  return body('CategoryPage', { first: 20, filter, orderBy });
}

/** What shoppers type: a noun, an adjective and a noun, a prefix, a typo (two letters swapped). */
function searchText(): string {
  const category = pick(CATEGORIES);
  const noun = pick(NOUNS[category]).toLowerCase();
  const adjective = pick(ADJECTIVES).toLowerCase();
  const typo = noun.length > 4 ? `${noun.slice(0, 2)}${noun[3]}${noun[2]}${noun.slice(4)}` : noun;
  return pick([noun, `${adjective} ${noun}`, noun.slice(0, 4), typo, `${noun} ${category.toLowerCase()}`]);
}

/** A page of search results. */
export function searchPage(): string {
  return body('SearchPage', { query: searchText(), first: 20 });
}

/** The facets beside a page of search results (the shop mix's: bench/lib/shop-mix.ts). */
export function searchFacets(): string {
  return body('ShopFacets', { filter: {}, query: searchText() });
}

/**
 * Facets beside a category page, of the whole catalogue, of a filter on
 * several sizes (the size set cells), and of a search: a noun (counted
 * exactly when rare enough) or an adjective (common words: estimated).
 */
function facets(): string {
  const category = pick(CATEGORIES);
  const sizes = sizesFor(category);
  const filter = pick([{}, { categories: [category] }, { categories: [category], inStock: true, onSale: true }, { sizes: [pick(sizes)], priceMax: '60.00' },
    { categories: [category], sizes: [pick(sizes), pick(sizes)] }]);
  const query = pick([undefined, undefined, pick(NOUNS[category]).toLowerCase(), pick(ADJECTIVES).toLowerCase()]);
  return body('ShopFacets', query === undefined ? { filter } : { filter: {}, query });
}

/** Deep keyset pages in a non-id ordering: cursors of random rows of the bench catalogue. */
async function deepKeyset(databaseUrl: string): Promise<string[]> {
  const rows = await queryOnce<{ id: number; name: string; updated: string }>(databaseUrl, `
    SELECT product_id AS id, name, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated
    FROM product_browse TABLESAMPLE SYSTEM (1) REPEATABLE (1) LIMIT ${COUNT}`);
  return rows.map((row, i) => (i % 2 === 0
    ? body('CategoryPage', { first: 20, orderBy: { field: 'NAME', direction: 'ASC' }, after: encodeCursor('NAME ASC', { key: row.name, id: row.id }) })
    : body('CategoryPage', { first: 20, orderBy: { field: 'UPDATED_AT', direction: 'DESC' }, after: encodeCursor('UPDATED_AT DESC', { key: row.updated, id: row.id }) })));
}

/** A word of the catalogue's names with how many documents hold its lexeme. */
interface NameWord { word: string; documents: number }
/** Common: held by this many documents or more (about 2% of a full catalogue); rare: by 10 to 2,000. */
const COMMON_DOCUMENTS = 20_000;

/**
 * The words of a sample of the bench catalogue's product names (whatever its
 * generator or vocabulary), with their lexeme's document count: the texts of
 * the facet kinds come from the catalogue itself, as a shopper's would.
 */
async function nameWords(databaseUrl: string): Promise<NameWord[]> {
  return queryOnce<NameWord>(databaseUrl, `
    WITH words AS (
      SELECT DISTINCT lower(w) AS word
      FROM (SELECT name FROM product_browse TABLESAMPLE SYSTEM (0.5) REPEATABLE (7)) s, regexp_split_to_table(s.name, '[^[:alpha:]]+') w
      WHERE length(w) >= 4)
    SELECT w.word, l.documents FROM words w JOIN search_lexemes l ON l.lexeme = (ts_lexize('english_stem', w.word))[1]
    ORDER BY w.word`);
}

/** Two inner letters swapped, so the word needs a correction (not a word of the names itself). */
function misspell(word: string, known: Set<string>): string | undefined {
  for (let at = 2; at + 1 < word.length; at++) {
    const typo = `${word.slice(0, at)}${word[at + 1]}${word[at]}${word.slice(at + 2)}`;
    if (typo !== word && !known.has(typo)) return typo;
  }
  return undefined;
}

/**
 * Facets of one kind of search text each (the search issue's budget names
 * them): two common words, a common and a rare word, a misspelt common word,
 * a prefix of a common word (all but its last two letters), and a common
 * word under a filter (a category, a category in stock, or in stock under a price).
 */
async function facetKinds(databaseUrl: string): Promise<Record<`graphql-facets-${FacetKind}`, string[]>> {
  const words = await nameWords(databaseUrl);
  const common = words.filter((w) => w.documents >= COMMON_DOCUMENTS).map((w) => w.word);
  const rare = words.filter((w) => w.documents >= 10 && w.documents <= 2_000).map((w) => w.word);
  if (common.length < 2 || rare.length === 0) throw new Error(`the bench catalogue's names hold ${common.length} common and ${rare.length} rare words: too few for the facet kinds`);
  const known = new Set(words.map((w) => w.word));
  const categories = (await queryOnce<{ category: string }>(databaseUrl, 'SELECT DISTINCT category FROM product_browse ORDER BY 1')).map((r) => r.category);
  const facetsOf = (query: string, filter: Record<string, unknown> = {}) => body('ShopFacets', { filter, query });
  const twoCommon = () => { const a = pick(common); let b = pick(common); while (b === a) b = pick(common); return `${a} ${b}`; };
  const misspelt = () => { for (;;) { const typo = misspell(pick(common), known); if (typo) return typo; } };
  const long = common.filter((w) => w.length >= 6);
  const prefix = () => { const word = pick(long); return word.slice(0, word.length - 2); };
  const filter = () => { const category = pick(categories); return pick([{ categories: [category] }, { categories: [category], inStock: true }, { inStock: true, priceMax: '60.00' }]); };
  return {
    'graphql-facets-two-common': Array.from({ length: COUNT }, () => facetsOf(twoCommon())),
    'graphql-facets-common-rare': Array.from({ length: COUNT }, () => facetsOf(`${pick(common)} ${pick(rare)}`)),
    'graphql-facets-misspelt': Array.from({ length: COUNT }, () => facetsOf(misspelt())),
    'graphql-facets-prefix': Array.from({ length: COUNT }, () => facetsOf(prefix())),
    'graphql-facets-filtered': Array.from({ length: COUNT }, () => facetsOf(pick(common), filter())),
  };
}

/** Writes each browse scenario's bodies to `<dir>/<scenario>.jsonl`; returns the paths by scenario. */
export async function writeBrowseRequests(dir: string, databaseUrl: string): Promise<Record<BrowseScenario, string>> {
  fs.mkdirSync(dir, { recursive: true });
  seed = 1;
  const bodies: Record<BrowseScenario, string[]> = {
    'graphql-category-page': Array.from({ length: COUNT }, categoryPage),
    'graphql-search': Array.from({ length: COUNT }, searchPage),
    'graphql-facets': Array.from({ length: COUNT }, facets),
    'graphql-deep-keyset': await deepKeyset(databaseUrl),
    ...await facetKinds(databaseUrl),
  };
  const files = {} as Record<BrowseScenario, string>;
  for (const scenario of BROWSE_SCENARIOS) {
    files[scenario] = path.join(dir, `${scenario}.jsonl`);
    fs.writeFileSync(files[scenario], `${bodies[scenario].join('\n')}\n`);
  }
  return files;
}

/** One body of the file, at random (the SQL sampling). */
export function randomBody(file: string): string {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
  return lines[Math.floor(Math.random() * lines.length)] as string;
}
