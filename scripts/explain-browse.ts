// npm run bench:explain -- [--json] [--only <text>] [--save <name>]   (DATABASE_URL: a migrated, loaded catalogue)
//
// Runs EXPLAIN (ANALYZE, BUFFERS) on the browse, search and facet statements
// of representative requests (the bench scenarios' and the worst shapes), as
// the API runs them: prepared, in a session with the API's settings
// (src/db/pool/session-settings.ts: generic plans, JIT off), each executed three times and the
// last plan kept (warm). Prints per request: execution time, planning time,
// shared buffers hit/read, and the plan's top nodes; --json prints the raw
// plans; --only runs the requests whose label contains the text; --save <name>
// writes each request's figures with their provenance to
// docs/performance/<name>.json, which docs/browse.md renders
// (scripts/render-performance.ts: statements, kept-counts).
import pg from 'pg';
import { parseArgs } from 'node:util';
import { withSessionSettings } from '../src/db/pool/session-settings.ts';
import { endProvenance, publish, savedName, startProvenance } from '../bench/lib/provenance.ts';
import { decodeCursor } from '../src/catalog/browse/browse-cursor.ts';
import type { BrowseFilter, BrowseOrder } from '../src/catalog/browse/browse-input.ts';
import { type BrowseStatement, facetsStatement, pageStatement } from '../src/catalog/browse/browse-statements.ts';
import { resolveStatement } from '../src/search/dictionary/resolve.ts';
import { type Resolved, resolvedOf } from '../src/search/dictionary/resolved.ts';
import { searchStatement } from '../src/search/bucket-sort.ts';
import { searchFacetsStatement } from '../src/search/facets/search-facets.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL');
const { values: options } = parseArgs({ options: { json: { type: 'boolean', default: false }, only: { type: 'string' }, save: { type: 'string' } } });
const { json, only } = options;
const save = savedName(options.save);

/** One request's statement, as measured: the third execution's times and its shared buffers (hit and read). */
export interface ExplainedStatement { label: string; executionMs: number; planningMs: number; buffers: number }
const explained: ExplainedStatement[] = [];

interface Plan {
  'Node Type': string;
  'Actual Rows'?: number;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: Plan[];
}

function outline(plan: Plan, depth = 0, lines: string[] = []): string[] {
  if (depth < 6) {
    const on = plan['Index Name'] ?? plan['Relation Name'];
    lines.push(`${'  '.repeat(depth)}${plan['Node Type']}${on ? ` on ${on}` : ''} (rows ${plan['Actual Rows']})`);
    for (const child of plan.Plans ?? []) outline(child, depth + 1, lines);
  }
  return lines;
}

// The API's own session settings (generic plans, no parallel workers, no JIT, its work_mem).
const client = new pg.Client({ connectionString: withSessionSettings(url) });
await client.connect();
const [{ products }] = (await client.query<{ products: number }>('SELECT count(*)::int AS products FROM product_browse')).rows as [{ products: number }];
const provenance = startProvenance('bench:explain', process.argv.slice(2), { products, database: new URL(url).pathname.slice(1) });

async function explain(label: string, statement: BrowseStatement): Promise<void> {
  if (only !== undefined && !label.includes(only)) return;
  await client.query(`PREPARE s AS ${statement.text}`);
  try {
    // EXPLAIN EXECUTE is a utility statement: its values go in as literals.
    const literal = (value: unknown): string => Array.isArray(value)
      ? client.escapeLiteral(`{${value.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`)
      : value === null || value === undefined ? 'NULL' : client.escapeLiteral(String(value));
    const args = statement.values.map(literal).join(', ');
    let result: { Plan: Plan; 'Execution Time': number; 'Planning Time': number } | undefined;
    for (let i = 0; i < 3; i++) {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE s${args ? `(${args})` : ''}`);
      [result] = rows[0]['QUERY PLAN'];
    }
    if (!result) return;
    const buffers = result.Plan as unknown as { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
    explained.push({ label, executionMs: result['Execution Time'], planningMs: result['Planning Time'], buffers: buffers['Shared Hit Blocks'] + buffers['Shared Read Blocks'] });
    console.log(`\n## ${label}\nexecution ${result['Execution Time'].toFixed(2)} ms, planning ${result['Planning Time'].toFixed(2)} ms, buffers hit ${buffers['Shared Hit Blocks']} read ${buffers['Shared Read Blocks']}`);
    console.log(json ? JSON.stringify(result, null, 1) : outline(result.Plan).join('\n'));
  } finally {
    await client.query('DEALLOCATE s');
  }
}

/** A cursor deep into an ordering: the row at `offset` (found here, by OFFSET, once). */
async function deepCursor(order: BrowseOrder, offset: number) {
  const statement = pageStatement({}, order, undefined, 1);
  // The page's own read of product_browse (its inner LIMIT) skips `offset` rows.
  const text = statement.text.replace(/LIMIT (\$\d+::int)\) b/, `OFFSET ${offset} LIMIT $1) b`);
  const { rows } = await client.query<{ id: number; sortKey: string }>(text, statement.values);
  return { key: rows[0]!.sortKey, id: rows[0]!.id };
}

const jackets: BrowseFilter = { categories: ['Jackets'] };
const categoryPage: BrowseFilter = { categories: ['Kicks'], onSale: true, inStock: true, sizes: ['9', '9.5'], priceMin: '20.00', priceMax: '80.00' };
await explain('category page: Jackets by price', pageStatement(jackets, { field: 'PRICE', direction: 'ASC' }, undefined, 21));
await explain('filtered category page: Kicks, on sale, in stock, size 9 or 9.5, 20-80, by price desc', pageStatement(categoryPage, { field: 'PRICE', direction: 'DESC' }, undefined, 21));
await explain('deep keyset page: by name, 500,000 rows in', pageStatement({}, { field: 'NAME', direction: 'ASC' }, await deepCursor({ field: 'NAME', direction: 'ASC' }, 500_000), 21));
await explain('deep keyset page: by updated_at desc, 900,000 rows in', pageStatement({}, { field: 'UPDATED_AT', direction: 'DESC' }, await deepCursor({ field: 'UPDATED_AT', direction: 'DESC' }, 900_000), 21));
await explain('deep page by id after product 990,000 (the products joined one by one)', pageStatement({}, { field: 'ID', direction: 'ASC' }, { key: null, id: 990_000 }, 21));
await explain('category page by name, price 50-100 (walked window)', pageStatement({ categories: ['Slacks'], inStock: true, priceMin: '50.00', priceMax: '100.00' }, { field: 'NAME', direction: 'ASC' }, undefined, 21));
await explain('category page by name, a price nothing has (window, then every match)', pageStatement({ categories: ['Slacks'], priceMin: '1114.00', priceMax: '1114.00' }, { field: 'NAME', direction: 'DESC' }, { key: 'Lounge Slacks', id: 500_000 }, 21));
await explain('rare filter: price 114.00 exactly, by name', pageStatement({ priceMin: '114.00', priceMax: '114.00' }, { field: 'NAME', direction: 'ASC' }, undefined, 21));
/** What a search's words resolve to (the first of its statements). */
async function resolved(words: string[]): Promise<Resolved> {
  const statement = resolveStatement(words);
  const { rows } = await client.query(statement.text, statement.values);
  return resolvedOf(rows[0])!;
}
for (const [label, words] of [['camo onesie', ['camo', 'onesie']], ['jacket (common)', ['jacket']], ['summer (very common)', ['summer']],
  ['jakcet (typo)', ['jakcet']], ['hood (prefix)', ['hood']], ['zipper (description only)', ['zipper']],
  ['parka jackets (correlated words)', ['parka', 'jackets']], ['lounge pants (correlated words)', ['lounge', 'pants']]] as const) {
  await explain(`resolve: "${label}"`, resolveStatement([...words]));
  const searched = await resolved([...words]);
  await explain(`search: "${label}" -> ${searched.query}`, searchStatement(searched, {}, undefined, 21, { snippets: true, defaultStyle: true }));
}
const jacket = await resolved(['jacket']);
const firstPage = await client.query(searchStatement(jacket, {}, undefined, 200, {}));
const last = firstPage.rows.at(-1) as { sortKey: string; id: number } | undefined;
if (last) await explain('search: "jacket", the page after 200 results', searchStatement(jacket, {}, { key: last.sortKey, id: last.id }, 21, { snippets: true, defaultStyle: true }));
await explain('search: "boots" filtered (on sale, size 9)', searchStatement(await resolved(['boots']), { onSale: true, sizes: ['9'] }, undefined, 21, { snippets: true, defaultStyle: true }));
await explain('facets: no filter', facetsStatement({}));
await explain('facets: Jackets', facetsStatement(jackets));
await explain('facets: Heels in 7.5 or 8 (size and pair cells)', facetsStatement({ categories: ['Heels'], sizes: ['7.5', '8'] }));
await explain('facets: filtered category page (two sizes: size and pair cells)', facetsStatement(categoryPage));
await explain('facets: sizes M or L, nothing else (size and pair cells)', facetsStatement({ sizes: ['M', 'L'] }));
await explain('facets: sizes S, M, L or XL, on sale, 20-80 (size set cells)', facetsStatement({ sizes: ['S', 'M', 'L', 'XL'], onSale: true, priceMin: '20.00', priceMax: '80.00' }));
await explain('facets: Kicks on sale in stock, size 9', facetsStatement({ ...categoryPage, sizes: ['9'] }));
for (const words of [['camo', 'onesie'], ['summer'], ['zipper'], ['every'], ['parka', 'jackets']]) {
  await explain(`facets: search "${words.join(' ')}"`, searchFacetsStatement({}, await resolved(words)));
}
await explain('facets: search "jacket", in stock, sizes M or L', searchFacetsStatement({ inStock: true, sizes: ['M', 'L'] }, jacket));
await facetKinds();
void decodeCursor;
await client.end();
if (save) console.log(`\nsaved to ${publish(save, { provenance: endProvenance(provenance), statements: explained })}`);

/**
 * Facets of every kind of search text the budgets name, with words picked
 * from this catalogue's own dictionary (so any catalogue shape works): two
 * common words, a common and a rare word, a misspelt word, a prefix, a
 * search with a filter; each also without the counts kept for common words
 * (implying: null), which is what search_word_facets saves.
 */
async function facetKinds(): Promise<void> {
  const pick = async (low: number, high: number, skip = 0) => (await client.query<{ lexeme: string }>(
    `SELECT lexeme FROM search_lexemes WHERE documents BETWEEN $1 AND $2 AND lexeme ~ '^[a-z]{5,}$' ORDER BY documents DESC, lexeme OFFSET $3 LIMIT 1`, [low, high, skip])).rows[0]!.lexeme;
  const [common, other, rare] = [await pick(50_000, 200_000), await pick(50_000, 200_000, 1), await pick(30, 200)];
  // Two different letters swapped, as a typist slips.
  const at = [...common].findIndex((c, i) => i >= 2 && i + 1 < common.length && c !== common[i + 1]);
  const misspelt = common.slice(0, at) + common[at + 1] + common[at] + common.slice(at + 2);
  const kinds: [string, string[], BrowseFilter][] = [
    ['two common words', [common, other], {}], ['a common and a rare word', [common, rare], {}], ['a misspelt word', [misspelt], {}],
    ['a prefix', [common.slice(0, 4)], {}], ['a search with a filter', [common], { categories: ['Jackets'], inStock: true }],
    ['one common word', [common], {}],
  ];
  for (const [kind, words, filter] of kinds) {
    const searched = await resolved(words);
    await explain(`facets kind: ${kind} "${words.join(' ')}" -> ${searched.query}`, searchFacetsStatement(filter, searched));
    if (searched.implying !== null) await explain(`facets kind: ${kind}, matches counted (no kept counts)`, searchFacetsStatement(filter, { ...searched, implying: null }));
  }
}
