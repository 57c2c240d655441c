// The requests of the browse scenarios (graphql-category-page, graphql-search,
// graphql-facets, graphql-deep-keyset): GraphQL bodies drawn from the
// catalogue generator's words and from the bench catalogue itself (deep
// cursors), written one per line to a file that the wrk scripts, the k6
// scenarios and the SQL sampling all read (BROWSE_REQUESTS), so each sends
// exactly the same mix. Operations come from k6/operations.graphql.
import fs from 'node:fs';
import path from 'node:path';
import { encodeCursor } from '../../src/catalog/browse/browse-cursor.ts';
import { ADJECTIVES, CATEGORIES, NOUNS, sizesFor } from '../../src/etl/generate/vocabulary.ts';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import { operationsByName } from '../../k6/lib/operation-text.ts';

export const BROWSE_SCENARIOS = ['graphql-category-page', 'graphql-search', 'graphql-facets', 'graphql-deep-keyset'] as const;
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

/** Writes each browse scenario's bodies to `<dir>/<scenario>.jsonl`; returns the paths by scenario. */
export async function writeBrowseRequests(dir: string, databaseUrl: string): Promise<Record<BrowseScenario, string>> {
  fs.mkdirSync(dir, { recursive: true });
  seed = 1;
  const bodies: Record<BrowseScenario, string[]> = {
    'graphql-category-page': Array.from({ length: COUNT }, categoryPage),
    'graphql-search': Array.from({ length: COUNT }, searchPage),
    'graphql-facets': Array.from({ length: COUNT }, facets),
    'graphql-deep-keyset': await deepKeyset(databaseUrl),
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
