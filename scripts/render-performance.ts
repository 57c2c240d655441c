// Renders the README's performance table from the results files the benches
// publish (`npm run bench -- … --save <name>`, `npm run bench:etl -- … --save
// <name>`: docs/performance/<name>.json), so that every figure the README
// shows is one a bench wrote, with the command, commit, machine and date
// beside it in that file. test/docs/performance-table.test.ts fails when the
// README and the files disagree.
//
//   npm run bench:readme              rewrite the README's table
//   npm run bench:readme -- --check   exit 1 if it differs
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(import.meta.dirname, '..');
export const RESULTS_DIR = path.join(ROOT, 'docs', 'performance');
const README = path.join(ROOT, 'README.md');
const START = '<!-- performance: rendered by scripts/render-performance.ts from docs/performance/*.json -->';
const END = '<!-- /performance -->';

/** A row of a results file: the bench's medians, or its rows when it ran once. */
interface ResultRow { scenario: string; workers: number; cache: string | null; rps: number; p99: number; runs?: number }
interface BenchResults { provenance: { command: string; startedAt: string; machine: { loadAverage: { start: number; end?: number } } }; rows: ResultRow[]; medians?: ResultRow[] }
interface EtlResults { provenance: BenchResults['provenance']; results: { loadSeconds: number } }

/** Which figures of which file a README row shows: two cells at most, "a / b". */
interface RowSpec {
  what: string;
  file: string;
  cells: { scenario: string; cache: string; workers?: number }[];
}

/** The README's rows, in order. The shop mix and the reads are `npm run bench` files; the load is bench:etl's. */
export const ROWS: RowSpec[] = [
  { what: 'shop mix (Zipf(1) over the catalogue; 40% REST styles, 35% GraphQL page, 10% category pages, 10% search, 5% facets), Redis cache, 1 process / 2', file: 'shop-mix',
    cells: [{ scenario: 'shop-mix', cache: 'redis', workers: 1 }, { scenario: 'shop-mix', cache: 'redis', workers: 2 }] },
  { what: '`GET /products/:id/styles`: cache off / Redis cache, misses', file: 'misses', cells: [{ scenario: 'rest-styles', cache: 'off' }, { scenario: 'rest-styles', cache: 'redis' }] },
  { what: 'GraphQL full product page by POST: cache off / misses', file: 'misses', cells: [{ scenario: 'graphql-product-page', cache: 'off' }, { scenario: 'graphql-product-page', cache: 'redis' }] },
  { what: 'the same by persisted-query GET: cache off / misses', file: 'misses', cells: [{ scenario: 'graphql-product-page-apq', cache: 'off' }, { scenario: 'graphql-product-page-apq', cache: 'redis' }] },
  { what: 'REST styles / GraphQL page by persisted GET, Redis cache hits (hot set of 10,000)', file: 'hot', cells: [{ scenario: 'rest-styles', cache: 'redis' }, { scenario: 'graphql-product-page-apq', cache: 'redis' }] },
  { what: 'GraphQL category page / deep keyset page, cache off', file: 'browse', cells: [{ scenario: 'graphql-category-page', cache: 'off' }, { scenario: 'graphql-deep-keyset', cache: 'off' }] },
  { what: 'GraphQL search / facets (half of them of a search), cache off', file: 'browse', cells: [{ scenario: 'graphql-search', cache: 'off' }, { scenario: 'graphql-facets', cache: 'off' }] },
];
/** The full load's row: bench:etl's file, when one was published (`npm run bench:etl -- --scale 1 --save etl`). */
const ETL = { what: 'full load of the 26.7 million CSV rows (one run)', file: 'etl' };

function read<T>(dir: string, name: string): T {
  const file = path.join(dir, `${name}.json`);
  if (!fs.existsSync(file)) throw new Error(`docs/performance/${name}.json is missing: run the command the README names for it with --save ${name}`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

const rate = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)}`;

function cellsOf(spec: RowSpec, results: BenchResults): ResultRow[] {
  const rows = results.medians ?? results.rows;
  return spec.cells.map((cell) => {
    const found = rows.find((r) => r.scenario === cell.scenario && r.cache === cell.cache && (cell.workers === undefined || r.workers === cell.workers));
    if (!found) throw new Error(`docs/performance/${spec.file}.json has no row for ${cell.scenario}, cache ${cell.cache}${cell.workers ? `, ${cell.workers} workers` : ''}`);
    return found;
  });
}

function provenanceNote(name: string, results: { provenance: BenchResults['provenance'] }, runs: number | undefined): string {
  const { machine } = results.provenance;
  const load = machine.loadAverage.end === undefined ? `${machine.loadAverage.start}` : `${machine.loadAverage.start}-${machine.loadAverage.end}`;
  return `${name} (${runs && runs > 1 ? `medians of ${runs}` : 'one run'}, load average ${load})`;
}

/** The block between the README's markers: the table, then the files its figures come from. */
export function renderBlock(dir: string = RESULTS_DIR): string {
  const lines = ['| what | requests/s | p99 ms | results |', '| --- | --- | --- | --- |'];
  const used = new Map<string, string>();
  for (const spec of ROWS) {
    const results = read<BenchResults>(dir, spec.file);
    const cells = cellsOf(spec, results);
    lines.push(`| ${spec.what} | ${cells.map((c) => rate(c.rps)).join(' / ')} | ${cells.map((c) => ms(c.p99)).join(' / ')} | [${spec.file}](docs/performance/${spec.file}.json) |`);
    if (!used.has(spec.file)) used.set(spec.file, provenanceNote(spec.file, results, cells[0]!.runs));
  }
  if (fs.existsSync(path.join(dir, `${ETL.file}.json`))) {
    const etl = read<EtlResults>(dir, ETL.file);
    lines.push(`| ${ETL.what} | ${etl.results.loadSeconds.toFixed(0)} s | | [${ETL.file}](docs/performance/${ETL.file}.json) |`);
    used.set(ETL.file, provenanceNote(ETL.file, etl, 1));
  }
  return [START, ...lines, '', `Each file holds its command, commit, machine and dates: ${[...used.values()].join(', ')}.`, END].join('\n');
}

/** The README with its block rendered anew. */
export function renderReadme(readme: string, dir: string = RESULTS_DIR): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} block`);
  return `${readme.slice(0, start)}${renderBlock(dir)}${readme.slice(end + END.length)}`;
}

if (import.meta.main) {
  const readme = fs.readFileSync(README, 'utf8');
  const rendered = renderReadme(readme);
  if (process.argv.includes('--check')) {
    if (rendered !== readme) {
      console.error('README.md\'s performance table differs from docs/performance/*.json: run npm run bench:readme');
      process.exit(1);
    }
  } else if (rendered !== readme) {
    fs.writeFileSync(README, rendered);
    console.log('README.md: performance table rendered from docs/performance/*.json');
  } else console.log('README.md: performance table already current');
}
