// node scripts/search-buffers.ts <database URL> <before root> <after root>
//
// What a change to search costs, in shared buffers (which the host's load
// does not move) and execution time: the bench's search texts
// (bench/lib/browse-requests.ts, each distinct text once; TEXTS=n: the
// first n), each resolved once, then each root's search statement (its
// src/search/, e.g. a worktree of the commit before a change and this one)
// run with EXPLAIN (ANALYZE, BUFFERS) as the API runs it: prepared, generic
// plan, JIT and parallel workers off, the second execution kept. Prints the
// mean per search of each, and the texts whose buffers grew most.
import pg from 'pg';
import { reseedBrowseChoices, searchPage } from '../bench/lib/browse-requests.ts';
import { searchWords } from '../src/catalog/browse/browse-input.ts';

const [url, beforeRoot, afterRoot] = process.argv.slice(2);
if (!url || !beforeRoot || !afterRoot) throw new Error('usage: node scripts/search-buffers.ts <database URL> <before root> <after root>');

interface Search {
  searchStatement: (resolved: unknown, filter: object, after: undefined, limit: number, extras: object) => { text: string; values: unknown[] };
  resolveStatement: (words: readonly string[]) => { text: string; values: unknown[] };
  resolvedOf: (row: unknown) => unknown;
}
const load = async (root: string): Promise<Search> => ({
  ...(await import(`${root}/src/search/bucket-sort.ts`)),
  ...(await import(`${root}/src/search/dictionary/resolve.ts`)),
  ...(await import(`${root}/src/search/dictionary/resolved.ts`)),
});
const [before, after] = [await load(beforeRoot), await load(afterRoot)];
reseedBrowseChoices(1);
const all = [...new Set(Array.from({ length: 400 }, () => JSON.parse(searchPage()).variables.query as string))];
const texts = all.slice(0, Number(process.env.TEXTS ?? all.length));

const client = new pg.Client({ connectionString: url });
await client.connect();
await client.query('SET plan_cache_mode = force_generic_plan; SET max_parallel_workers_per_gather = 0; SET jit = off');
const literal = (value: unknown): string => Array.isArray(value)
  ? client.escapeLiteral(`{${value.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`)
  : value === null || value === undefined ? 'NULL' : client.escapeLiteral(String(value));

async function measure(statement: { text: string; values: unknown[] }): Promise<{ ms: number; buffers: number }> {
  await client.query(`PREPARE s AS ${statement.text}`);
  try {
    let plan: { 'Execution Time': number; Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } } | undefined;
    for (let i = 0; i < 2; i++) plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE s(${statement.values.map(literal).join(', ')})`)).rows[0]['QUERY PLAN'][0];
    return { ms: plan!['Execution Time'], buffers: plan!.Plan['Shared Hit Blocks'] + plan!.Plan['Shared Read Blocks'] };
  } finally {
    await client.query('DEALLOCATE s');
  }
}

const sums = { before: { ms: 0, buffers: 0 }, after: { ms: 0, buffers: 0 } };
const grown: { ratio: number; line: string }[] = [];
let searched = 0;
for (const text of texts) {
  const resolve = before.resolveStatement(searchWords(text));
  const [row] = (await client.query(resolve.text, resolve.values)).rows;
  if (before.resolvedOf(row) === null) continue;
  const page = (search: Search) => search.searchStatement(search.resolvedOf(row), {}, undefined, 21, { snippets: true, defaultStyle: true });
  const [a, b] = [await measure(page(before)), await measure(page(after))];
  searched += 1;
  sums.before.ms += a.ms; sums.before.buffers += a.buffers;
  sums.after.ms += b.ms; sums.after.buffers += b.buffers;
  grown.push({ ratio: b.buffers / Math.max(a.buffers, 1), line: `${text}: ${a.buffers} -> ${b.buffers} buffers, ${a.ms.toFixed(1)} -> ${b.ms.toFixed(1)} ms` });
}
await client.end();
const mean = (sum: { ms: number; buffers: number }) => `${(sum.buffers / searched).toFixed(0)} buffers, ${(sum.ms / searched).toFixed(2)} ms`;
console.log(`${searched} texts; a search: before ${mean(sums.before)}; after ${mean(sums.after)}`);
for (const { line } of grown.sort((x, y) => y.ratio - x.ratio).slice(0, 8)) console.log(line);
