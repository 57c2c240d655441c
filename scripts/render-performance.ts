// Renders the README's performance table from the results files the benches
// publish (`npm run bench -- … --save <name>`, `npm run bench:etl -- … --save
// <name>`: docs/performance/<name>.json), so that every figure the README
// shows is one a bench wrote, with the command, commit, machine and date
// beside it in that file. test/docs/performance-table.test.ts fails when the
// README and the files disagree.
//
// The figures the docs quote come from the same files: each is a block between
// `<!-- rendered: <name> (scripts/render-performance.ts) -->` and
// `<!-- /rendered -->` in its doc, rendered by DOC_BLOCKS below.
//
//   npm run bench:readme              rewrite the README's table and the docs' blocks
//   npm run bench:readme -- --check   exit 1 if any differs
import fs from 'node:fs';
import path from 'node:path';
import { median as middle } from '../bench/lib/median.ts';
import { type SoakResult, soakSummary } from '../bench/lib/soak-summary.ts';
import { note, ordered, readSpans } from '../bench/lib/trace-spans.ts';
import type { ExplainedStatement } from './explain-browse.ts';

const ROOT = path.join(import.meta.dirname, '..');
export const RESULTS_DIR = path.join(ROOT, 'docs', 'performance');
const README = path.join(ROOT, 'README.md');
const START = '<!-- performance: rendered by scripts/render-performance.ts from docs/performance/*.json -->';
const END = '<!-- /performance -->';

/** A row of a results file: the bench's medians, or its rows when it ran once. */
interface ResultRow { scenario: string; workers: number; cache: string | null; rps: number; p99: number; runs?: number }
interface BenchResults { provenance: { command: string; startedAt: string; machine: { cores: number; loadAverage: { start: number; end?: number } } }; rows: ResultRow[]; medians?: ResultRow[] }
interface EtlResults {
  provenance: BenchResults['provenance'];
  results: { loadSeconds: number; runs?: number; loaderPeakMemoryMb: number; loaderCpuSeconds: number; databaseCpuSeconds: number; rows: number; loadAverage: string };
  summary: { buildCpu: Record<string, number>; seconds: Record<string, number> };
  /** bench:etl --runs: each load's figures (the results are the median run's). */
  runs?: { loadSeconds: number; cpuSeconds: number; peakMemoryMb: number; loadAverage: string }[];
}

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
const ETL = { what: 'full load of the 26.7 million CSV rows', file: 'etl' };

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
    used.set(ETL.file, provenanceNote(ETL.file, etl, etl.runs?.length ?? 1));
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

// ---------------------------------------------------------------------------
// The docs' figures.

interface Row extends ResultRow { p50: number; hitRatio?: number | null; api?: string }
interface Results { provenance: BenchResults['provenance'] & { data: Record<string, unknown> }; rows: Row[]; medians?: Row[] }
interface LiveResults {
  provenance: Results['provenance'];
  results: {
    transport: string; generator: string; subscribers: number; changes: number; changesPerSecond: number; events: number; expectedEvents: number;
    latencyMs: { p50: number; p99: number; max: number }; apiCpuPercent: number; generatorCpuPercent: number; apiRssMb: number; kbPerConnection: number;
  }[];
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const loadOf = (results: { provenance: BenchResults['provenance'] }) => {
  const { start, end } = results.provenance.machine.loadAverage;
  return end === undefined ? `${start}` : `${start}-${end}`;
};
const source = (name: string, results: { provenance: BenchResults['provenance'] }) =>
  `[${name}.json](performance/${name}.json): \`${results.provenance.command}\`, host load average ${loadOf(results)}`;

/** A row of a scenario, cache and worker count, of this checkout's API or of it with a --setting (`api`). */
const rowOf = (scenario: string, cache: string | null, workers: number, api: string | undefined) => (r: Row) =>
  r.scenario === scenario && r.cache === cache && r.workers === workers && r.api === api;
/** The median row of a scenario (cache, workers, setting), or an error naming what is missing. */
function median(results: Results, file: string, scenario: string, cache: string | null, workers = 1, api?: string): Row {
  const found = (results.medians ?? results.rows).find(rowOf(scenario, cache, workers, api));
  if (!found) throw new Error(`docs/performance/${file}.json has no row for ${scenario}, cache ${cache}, ${workers} workers${api ? `, ${api}` : ''}`);
  return found;
}
/** Every run's row of a scenario. */
const runsOf = (results: Results, scenario: string, cache: string | null, workers = 1, api?: string) => results.rows.filter(rowOf(scenario, cache, workers, api));
/** Requests/s, p99 and hit ratio of a cached scenario: the median and the runs' ranges. */
const cachedCells = (m: Row, runs: Row[]) =>
  `${int(m.rps)} (${range(runs.map((r) => r.rps), int)}) | ${m.p99.toFixed(1)} ms (${range(runs.map((r) => r.p99), (n) => n.toFixed(1))}) | ${range(runs.map((r) => (r.hitRatio ?? 0) * 100), (n) => n.toFixed(0))}%`;
/**
 * The files of a bench run on each catalogue shape: the first is required,
 * the others (the second shape, --save <name>-shape-b) shown when published.
 */
function shapesOf<T>(dir: string, shapes: readonly { file: string; what: string }[]): { file: string; what: string; results: T }[] {
  return shapes.filter((shape, i) => i === 0 || fs.existsSync(path.join(dir, `${shape.file}.json`))).map((shape) => ({ ...shape, results: read<T>(dir, shape.file) }));
}
const range = (values: number[], format: (n: number) => string) => {
  const [low, high] = [format(Math.min(...values)), format(Math.max(...values))];
  return low === high ? low : `${low}-${high}`;
};

/** Browse and search targets (docs/browse.md): requests/s at least, p99 at most. */
const BROWSE = [
  { scenario: 'graphql-category-page', what: 'category page', p99: 20 },
  { scenario: 'graphql-deep-keyset', what: 'deep keyset page', p99: 20 },
  { scenario: 'graphql-search', what: 'search', rps: 500, p99: 40 },
  { scenario: 'graphql-facets', what: 'facets', p99: 50 },
  { scenario: 'graphql-facets-two-common', what: 'facets: two common words', p99: 50 },
  { scenario: 'graphql-facets-common-rare', what: 'facets: a common and a rare word', p99: 50 },
  { scenario: 'graphql-facets-misspelt', what: 'facets: a misspelt word', p99: 50 },
  { scenario: 'graphql-facets-prefix', what: 'facets: a prefix', p99: 50 },
  { scenario: 'graphql-facets-filtered', what: 'facets: a word and a filter', p99: 50 },
];

/** The browse scenarios on each catalogue measured: the default shape (--save browse) and the second (--save browse-shape-b), when there is one. */
const BROWSE_SHAPES = [{ file: 'browse', what: 'default' }, { file: 'browse-shape-b', what: 'second shape' }];

function browseBlock(dir: string): string {
  const shapes = shapesOf<Results>(dir, BROWSE_SHAPES);
  const lines = [`| scenario${shapes.length > 1 ? ' | catalogue' : ''} | runs: requests/s, p99 ms | median | target | met |`, `|${' --- |'.repeat(shapes.length > 1 ? 6 : 5)}`];
  for (const target of BROWSE) {
    for (const { file, what, results } of shapes) {
      const runs = runsOf(results, target.scenario, 'off');
      const m = median(results, file, target.scenario, 'off');
      const met = (target.rps === undefined || m.rps >= target.rps) && m.p99 <= target.p99;
      lines.push(`| ${target.what}${shapes.length > 1 ? ` | ${what}` : ''} | ${runs.map((r) => `${int(r.rps)}, ${r.p99.toFixed(1)}`).join('; ')} | ${int(m.rps)}/s, ${m.p99.toFixed(1)} ms | ${target.rps ? `${int(target.rps)}/s, ` : ''}p99 ${target.p99} ms | ${met ? 'yes' : 'no'} |`);
    }
  }
  const notes = shapes.map(({ file, what, results }) => `${what}: medians of ${median(results, file, BROWSE[0]!.scenario, 'off').runs ?? 1} runs; ${source(file, results)}`);
  return [...lines, '', `${notes.join('. ')}.`].join('\n');
}

function shopMixBlock(dir: string): string {
  const results = read<Results>(dir, 'shop-mix');
  const lines = ['| workers | requests/s (range) | p99 (range) | hit ratio (range) |', '| --- | --- | --- | --- |'];
  for (const workers of [1, 2]) {
    lines.push(`| ${workers} | ${cachedCells(median(results, 'shop-mix', 'shop-mix', 'redis', workers), runsOf(results, 'shop-mix', 'redis', workers))} |`);
  }
  return [...lines, '', `Medians of ${median(results, 'shop-mix', 'shop-mix', 'redis').runs ?? 1} runs; ${source('shop-mix', results)}.`].join('\n');
}

/**
 * The shop mix under each CACHE_ADMISSION (npm run bench --setting, each
 * named): the unlabelled run of the same bench before them only warms
 * Postgres's buffers, so that each setting starts from a warm database and
 * an empty cache of its own.
 */
const ADMISSIONS = [
  { api: 'CACHE_ADMISSION=doorkeeper', what: '`doorkeeper` (the default)' },
  { api: 'CACHE_ADMISSION=first-miss', what: '`first-miss`' },
  { api: 'CACHE_ADMISSION=second-miss', what: '`second-miss`' },
];

function admissionBlock(dir: string): string {
  const results = read<Results>(dir, 'admission');
  const lines = ['| admission | requests/s (range) | p99 (range) | hit ratio (range) |', '| --- | --- | --- | --- |'];
  for (const { api, what } of ADMISSIONS) {
    lines.push(`| ${what} | ${cachedCells(median(results, 'admission', 'shop-mix', 'redis', 1, api), runsOf(results, 'shop-mix', 'redis', 1, api))} |`);
  }
  const runs = median(results, 'admission', 'shop-mix', 'redis', 1, ADMISSIONS[0]!.api).runs ?? 1;
  return [...lines, '', `Medians of ${runs} runs as the cache fills (from the warm-up on), one process, each setting with an empty cache, Postgres warmed by an unlabelled run of the same mix before them; ${source('admission', results)}.`].join('\n');
}

const MISSES = [
  { scenario: 'rest-styles', what: '`GET /products/:id/styles`' },
  { scenario: 'graphql-product-page', what: 'GraphQL product page by POST' },
  { scenario: 'graphql-product-page-apq', what: 'GraphQL product page by persisted GET' },
];

function missesBlock(dir: string): string {
  const results = read<Results>(dir, 'misses');
  const lines = ['| request | cache off (median) | doorkeeper, misses (median) | misses over off |', '| --- | --- | --- | --- |'];
  for (const { scenario, what } of MISSES) {
    const off = median(results, 'misses', scenario, 'off');
    const misses = median(results, 'misses', scenario, 'redis');
    lines.push(`| ${what} | ${int(off.rps)}/s | ${int(misses.rps)}/s | ${(misses.rps / off.rps).toFixed(2)}x |`);
  }
  return [...lines, '', `Medians of ${median(results, 'misses', 'rest-styles', 'off').runs ?? 1} runs; ${source('misses', results)}.`].join('\n');
}

function referenceBlock(dir: string): string {
  const misses = read<Results>(dir, 'misses');
  const hot = read<Results>(dir, 'hot');
  const browse = read<Results>(dir, 'browse');
  const baseline = (results: Results) => range(runsOf(results, 'baseline', null).map((r) => r.rps), int);
  const restOff = median(misses, 'misses', 'rest-styles', 'off');
  const restHit = median(hot, 'hot', 'rest-styles', 'redis');
  const pageHit = median(hot, 'hot', 'graphql-product-page-apq', 'redis');
  const pageOff = median(misses, 'misses', 'graphql-product-page', 'off');
  const row = (what: string, r: Row, ratio: string, results: Results, file: string) =>
    `| ${what} | ${int(r.rps)} | ${r.p99.toFixed(1)} ms | ${ratio} | ${baseline(results)} | [${file}](performance/${file}.json) |`;
  const lines = [
    '| what | requests/s | p99 | ratio (same runs) | host (baseline/s) | results |', '| --- | --- | --- | --- | --- | --- |',
    row('`GET /products/:id/styles`, cache off', restOff, '', misses, 'misses'),
    row('`GET /products/:id/styles`, Redis cache hit, hot set of 10,000', restHit, '', hot, 'hot'),
    row('GraphQL full product page by persisted-query GET, cache hit', pageHit, `${(pageHit.rps / restHit.rps).toFixed(2)}x the REST hit`, hot, 'hot'),
    row('GraphQL full product page by POST, cache off (one SQL statement)', pageOff, `${(pageOff.rps / restOff.rps).toFixed(2)}x REST styles`, misses, 'misses'),
    ...BROWSE.map((target) => row(`browse: ${target.what}`, median(browse, 'browse', target.scenario, 'off'), '', browse, 'browse')),
  ];
  const commands = [['misses', misses], ['hot', hot], ['browse', browse]] as const;
  return [...lines, '', `Medians of three runs each; ${commands.map(([name, results]) => source(name, results)).join('; ')}.`].join('\n');
}

/** bench:etl's loads (--save etl, and etl-shape-b for the second shape when there is one): the median run, each run beside it. */
const ETL_SHAPES = [
  { file: 'etl', what: 'default (`npm run data:generate`)', short: 'default' },
  { file: 'etl-shape-b', what: 'second shape (`--text unrelated`)', short: 'second shape' },
];
const etlShapes = (dir: string) => shapesOf<EtlResults>(dir, ETL_SHAPES).map((shape) => ({ ...shape, short: ETL_SHAPES.find((s) => s.file === shape.file)!.short }));

function etlBlock(dir: string): string {
  const lines = ['| catalogue | full load, median (each run) | CPU seconds, loader + database (each run) | loader peak memory | rows | host load average during the median run | results |', '| --- | --- | --- | --- | --- | --- | --- |'];
  const commands: string[] = [];
  const phases: string[] = [];
  for (const shape of etlShapes(dir)) {
    const etl = shape.results;
    const r = etl.results;
    const runs = etl.runs ?? [{ loadSeconds: r.loadSeconds, cpuSeconds: r.loaderCpuSeconds + r.databaseCpuSeconds, peakMemoryMb: r.loaderPeakMemoryMb, loadAverage: r.loadAverage }];
    const each = (values: number[]) => (values.length > 1 ? ` (${values.map((v) => v.toFixed(0)).join(', ')})` : '');
    lines.push(`| ${shape.what} | ${r.loadSeconds.toFixed(0)} s${each(runs.map((x) => x.loadSeconds))} | ${r.loaderCpuSeconds.toFixed(0)} + ${r.databaseCpuSeconds.toFixed(0)}${each(runs.map((x) => x.cpuSeconds))} | ${Math.max(...runs.map((x) => x.peakMemoryMb))} MB | ${int(r.rows)} | ${r.loadAverage} | [${shape.file}.json](performance/${shape.file}.json) |`);
    commands.push(`\`${etl.provenance.command}\``);
    phases.push(`${shape.short}: ${['files', 'keys', 'build', 'finish', 'swap'].map((p) => `${p === 'build' ? 'builds' : p} ${(etl.summary.seconds[p] ?? 0).toFixed(1)} s`).join(', ')}`);
  }
  return [...lines, '', `The median loads' phases, wall time: ${phases.join('; ')}.`, '', `${commands.join('; ')}.`].join('\n');
}

/** docs/browse.md: the database CPU of each build phase of the median load, both shapes, and the loads' totals against the budget. */
function readModelLoadBlock(dir: string): string {
  const shapes = etlShapes(dir);
  const kinds = Object.keys(shapes[0]!.results.summary.buildCpu);
  const lines = [`| build phase | ${shapes.map((s) => `database CPU s, ${s.what}`).join(' | ')} |`, `|${' --- |'.repeat(1 + shapes.length)}`];
  for (const kind of kinds) lines.push(`| ${kind} | ${shapes.map((s) => (s.results.summary.buildCpu[kind] ?? 0).toFixed(1)).join(' | ')} |`);
  const total = (r: EtlResults['results']) => `${(r.loaderCpuSeconds + r.databaseCpuSeconds).toFixed(0)} (loader ${r.loaderCpuSeconds.toFixed(0)}, database ${r.databaseCpuSeconds.toFixed(0)})`;
  return [...lines, '', `The whole load, loader and database, against its budget of 400 CPU seconds: ${shapes.map((s) => `${total(s.results.results)} for the ${s.short}`).join('; ')}; the median loads of ${shapes.map((s) => `[${s.file}.json](performance/${s.file}.json)`).join(' and ')}.`].join('\n');
}

function liveBlock(dir: string): string {
  const live = read<LiveResults>(dir, 'live');
  const lines = ['| transport | subscribers | changes/s | events (expected) | latency p50 | p99 | max | API CPU | clients\' CPU | API RSS | per connection |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of live.results) {
    lines.push(`| ${r.transport === 'sse' ? 'SSE' : 'WebSocket'} | ${int(r.subscribers)} | ${r.changesPerSecond} | ${int(r.events)} (${int(r.expectedEvents)}) | ${r.latencyMs.p50} ms | ${r.latencyMs.p99} ms | ${r.latencyMs.max} ms | ${r.apiCpuPercent}% of a core | ${r.generatorCpuPercent}% (${r.generator}) | ${r.apiRssMb} MB | ${r.kbPerConnection} KB |`);
  }
  const data = live.provenance.data as { catalogueProducts?: number; watchedProducts?: number };
  return [...lines, '', `One run on a catalogue of ${int(data.catalogueProducts ?? 0)} products, ${int(data.watchedProducts ?? 0)} of them watched and renamed; ${source('live', live)}.`].join('\n');
}

interface PostgraphileResults {
  provenance: Results['provenance'];
  rows: { name: string; rps: number; p50: number; p99: number; nodeMs: number; pgMs: number; redisUs: number | null; hitRatio: number | null }[];
  ratios: { what: string; target: string; median: number; min: number; max: number }[];
  profiles?: Record<string, { functions: { name: string; share: number }[] }>;
}

/** bench:postgraphile's sitting: each target's medians and CPU a request, then the issue's ratios. */
function postgraphileBlock(dir: string): string {
  const results = read<PostgraphileResults>(dir, 'postgraphile');
  const ms3 = (n: number) => n.toFixed(3);
  const lines = ['| request | requests/s | p50 / p99 | Node CPU ms/request | Postgres CPU ms/request | Redis CPU µs/request | hits |', '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of results.rows) {
    lines.push(`| ${r.name} | ${int(r.rps)} | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms | ${ms3(r.nodeMs)} | ${ms3(r.pgMs)} | ${r.redisUs === null ? '' : r.redisUs.toFixed(1)} | ${r.hitRatio === null ? '' : `${(r.hitRatio * 100).toFixed(1)}%`} |`);
  }
  lines.push('', '| ratio | median (runs paired by round) | target | met |', '| --- | --- | --- | --- |');
  for (const r of results.ratios) {
    const target = Number(r.target.replace(/[^0-9.]/g, ''));
    lines.push(`| ${r.what} | ${r.median.toFixed(2)}x (${r.min.toFixed(2)}-${r.max.toFixed(2)}) | ${r.target}x | ${r.median >= target ? 'yes' : 'no'} |`);
  }
  const data = results.provenance.data as { summary?: string };
  return [...lines, '', `${data.summary ?? ''}; medians of the runs; ${source('postgraphile', results)}.`].join('\n');
}

/** docs/performance.md's arithmetic of what bounds the page's two ratios, from bench:postgraphile's sitting. */
function pageBoundsBlock(dir: string): string {
  const results = read<PostgraphileResults>(dir, 'postgraphile');
  const row = (name: string) => {
    const found = results.rows.find((r) => r.name === name);
    if (!found) throw new Error(`docs/performance/postgraphile.json has no row ${name}`);
    return found;
  };
  const ratio = (what: string) => results.ratios.find((r) => r.what === what)!.median;
  const [rest, page, pgl] = [row('REST styles, cache off'), row('page POST, cache off'), row('PostGraphile page POST')];
  const ms = (n: number) => n.toFixed(3);
  const bound = 1000 / page.nodeMs;
  const againstRest = ratio('page POST against REST styles, cache off');
  const againstPgl = ratio('page POST (ours, cache off) against PostGraphile');
  const needed = (page.nodeMs * againstRest) / 0.8;
  return `In the sitting above the page runs within ${Math.round((1 - page.rps / bound) * 100)}% of its Node
bound (1 / ${ms(page.nodeMs)} ms = ${int(bound)}/s; ${int(page.rps)}/s measured), so it is the Node thread
that bounds it. Against REST styles the page costs more on both counts:
${ms(page.nodeMs)} against ${ms(rest.nodeMs)} ms of Node CPU (${(rest.nodeMs / page.nodeMs).toFixed(2)}x) and ${ms(page.pgMs)} against ${ms(rest.pgMs)} ms of
Postgres CPU (its statement reads the product row and two documents where
REST reads one document). For 0.8x its Node CPU must come down to
${ms(page.nodeMs)} x ${againstRest.toFixed(2)} / 0.8 = ${ms(needed)} ms, ${Math.round((page.nodeMs - needed) * 1000)} µs (${Math.round((1 - needed / page.nodeMs) * 100)}%) less, every other cost the same.
Against PostGraphile the page costs ${(pgl.pgMs / page.pgMs).toFixed(1)}x less Postgres CPU (${ms(page.pgMs)} against
${ms(pgl.pgMs)} ms: PostGraphile reads the product, features, styles, photos, skus
and related rows of the base tables; the API reads three rows by primary
key, the documents the triggers keep) and ${(pgl.nodeMs / page.nodeMs).toFixed(1)}x less Node CPU (${ms(pgl.nodeMs)} ms);
both are Node-bound, so the ratio of rates, ${againstPgl.toFixed(2)}x, follows the Node ratio,
and 5x needs the page's Node CPU at ${ms(pgl.nodeMs)} / 5 = ${ms(pgl.nodeMs / 5)} ms there too.`;
}

/** Where the page's and REST's Node CPU goes: the profiled functions (name and file) each group gathers. */
const PROFILE_GROUPS = [
  { what: 'socket writes (`writeUtf8String`, `writev`: the responses and the statements; the loopback send is billed here)', match: /^(writeUtf8String|writev) \(native\)/ },
  { what: 'pg row parsing (`parseRow`, `addFields`, `postgres-date`, `postgres-array`)', match: /^(parseRow|addFields) \(pg:|\((postgres-date|postgres-array):/ },
  { what: 'the compiled query and its resolvers (src/graphql, graphql-jit\'s compiled handlers, `coerceVariableValues`)', match: /\((src\/graphql\/|graphql-jit:|graphql:)|MapItemHandler \(native\)/ },
  { what: 'reading and parsing the POST body (`secure-json-parse`)', match: /\(secure-json-parse:/ },
  { what: 'the ETag\'s hash, the styles document\'s text written as the legacy JSON (src/rest/shapes.ts)', match: /^hash \(node:internal\/crypto\/hash|\(src\/rest\/shapes\.ts:/ },
  { what: 'garbage collection, `(program)`', match: /^\((garbage collector|program)\)$/ },
];
const PROFILED = [{ key: 'page POST, cache off', what: 'page by POST' }, { key: 'REST styles, cache off', what: 'REST styles' }];

/** bench:postgraphile --profile's self-time shares (of the busy samples of one run), grouped by PROFILE_GROUPS. */
function profileBlock(dir: string): string {
  const results = read<PostgraphileResults>(dir, 'postgraphile');
  if (!results.profiles) throw new Error('docs/performance/postgraphile.json has no profiles: run bench:postgraphile with --profile');
  const share = (key: string, match: RegExp) => results.profiles![key]!.functions.filter((f) => match.test(f.name)).reduce((sum, f) => sum + f.share, 0);
  const lines = [`| where | ${PROFILED.map((p) => p.what).join(' | ')} |`, `| --- | ${PROFILED.map(() => '---').join(' | ')} |`];
  for (const group of PROFILE_GROUPS) {
    const cells = PROFILED.map((p) => share(p.key, group.match)).map((s) => (s >= 0.005 ? `${Math.round(s * 100)}%` : ''));
    lines.push(`| ${group.what} | ${cells.join(' | ')} |`);
  }
  const top = results.profiles[PROFILED[0]!.key]!.functions.length;
  return [...lines, '', `Shares of the busy samples, from each profile's top ${top} functions by self time, in the sitting above ([postgraphile.json](performance/postgraphile.json)).`].join('\n');
}

interface PoolerResults {
  provenance: Results['provenance'];
  rows: { scenario: string; path: 'direct' | 'unnamed' | 'pgbouncer'; rps: number; p50: number; p99: number; runs: number[] }[];
}
const POOLER_SCENARIOS: Record<string, string> = { 'rest-styles': '`GET /products/:id/styles`', 'graphql-product-styles': 'GraphQL product with styles', 'rest-products-page': '`GET /products`' };

/** bench:pooler --save pooler: each scenario's medians by path, with the ratio to direct in the same sitting. */
function poolerBlock(dir: string): string {
  const results = read<PoolerResults>(dir, 'pooler');
  const lines = ['| scenario | direct | unnamed statements, direct | through PgBouncer |', '| --- | --- | --- | --- |'];
  for (const scenario of [...new Set(results.rows.map((r) => r.scenario))]) {
    const of = (path: string) => results.rows.find((r) => r.scenario === scenario && r.path === path)!;
    const direct = of('direct');
    const against = (path: string) => `${rate(of(path).rps)}/s (${(of(path).rps / direct.rps).toFixed(2)})`;
    lines.push(`| ${POOLER_SCENARIOS[scenario] ?? scenario} | ${rate(direct.rps)}/s | ${against('unnamed')} | ${against('pgbouncer')} |`);
  }
  const runs = results.rows[0]?.runs.length ?? 0;
  return [...lines, '', `Medians of ${runs} runs each, ratios to direct in the same sitting; ${source('pooler', results)}.`].join('\n');
}

interface TopologyResults {
  provenance: Results['provenance'];
  stats: {
    name: string; seconds: number; requests: number; rps: number; failed: number; retried: number; perHost: Record<string, number>;
    cacheHitRatio: number | null; reads: { replica: number; primary: number; fallbacks: number }; maxReplayLagMs: number;
  }[];
  k6: { measured: { requests: number; rps: number; errors: number; dropped: number; p50: number; p95: number; p99: number }; checks: { passes?: number; fails?: number } };
  readYourWrites: { writes: number; reads: number; stale: number; failed: number };
}

/** bench:topology --save topology: a row per phase, from nginx's log and the hosts' counters, then k6's totals and the read-your-writes check. */
function topologyBlock(dir: string): string {
  const results = read<TopologyResults>(dir, 'topology');
  const hosts = ['api1', 'api2', 'api3'];
  const lines = [`| phase | s | requests | req/s | failed | retried | ${hosts.join(' | ')} | cache hits | replica reads | primary reads | max replay lag |`, `|${' --- |'.repeat(10 + hosts.length)}`];
  for (const p of results.stats) {
    const primaryShare = p.reads.replica + p.reads.primary > 0 ? ` (${Math.round((p.reads.primary / (p.reads.replica + p.reads.primary)) * 100)}%)` : '';
    lines.push(`| ${p.name} | ${p.seconds.toFixed(1)} | ${int(p.requests)} | ${int(p.rps)} | ${p.failed} | ${p.retried} | ${hosts.map((h) => int(p.perHost[h] ?? 0)).join(' | ')} | ${p.cacheHitRatio === null ? '-' : `${(p.cacheHitRatio * 100).toFixed(1)}%`} | ${int(p.reads.replica)} | ${int(p.reads.primary)}${primaryShare} | ${p.maxReplayLagMs.toFixed(0)} ms |`);
  }
  const { measured, checks } = results.k6;
  const r = results.readYourWrites;
  return [...lines, '',
    `k6: ${int(measured.requests)} requests (${int(measured.rps)}/s), ${Math.round(measured.errors * measured.requests)} failed, ${int(measured.dropped)} dropped, checks ${int(checks.passes ?? 0)}/${int((checks.passes ?? 0) + (checks.fails ?? 0))}, p50 ${measured.p50.toFixed(1)} ms, p95 ${measured.p95.toFixed(1)} ms, p99 ${measured.p99.toFixed(1)} ms. `
    + `Read-your-writes: ${int(r.writes)} writes acknowledged, ${int(r.reads)} reads after them, ${r.stale} stale, ${r.failed} failed.`,
    '', `${source('topology', results)}.`].join('\n');
}

interface FloodResults {
  entries: {
    kind: string; concurrency: number; rate: number; provenance: Results['provenance'];
    medians: { idleP99: number; floodP99: number; ratio: number };
    rounds: { idle: { failed: number }; flood: { failed: number }; attemptsPerSecond: number; accepted: number }[];
  }[];
}

/** bench:flood's floods (scripts/reconnect-flood.ts --save reconnect-flood): a normal client's p99 beside each. */
function floodBlock(dir: string): string {
  const { entries: floods } = read<FloodResults>(dir, 'reconnect-flood');
  const what = (f: FloodResults['entries'][number]) => `${f.kind === 'ws' ? 'WebSockets' : f.kind === 'sse' ? 'SSE streams' : 'WebSockets and SSE'}, ${f.rate > 0 ? `at most ${int(f.rate)}/s` : 'as fast as they come back'}`;
  const order = [...floods].sort((a, b) => (a.rate || Infinity) - (b.rate || Infinity) || a.kind.localeCompare(b.kind));
  const lines = ['| flood | attempts a second | the flood holds | p99 alone | beside the flood | ratio | normal requests failed |', '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const f of order) {
    const failed = f.rounds.reduce((n, r) => n + r.idle.failed + r.flood.failed, 0);
    lines.push(`| ${what(f)} | ${range(f.rounds.map((r) => r.attemptsPerSecond), int)} | ${range(f.rounds.map((r) => r.accepted), int)} | ${f.medians.idleP99.toFixed(1)} ms | ${f.medians.floodP99.toFixed(1)} ms | ${f.medians.ratio.toFixed(2)}x | ${int(failed)} |`);
  }
  const sources = order.map((f) => `\`${f.provenance.command}\` (host load average ${loadOf(f)})`).join('; ');
  return [...lines, '', `Medians of ${order[0]?.rounds.length ?? 0} rounds each; [reconnect-flood.json](performance/reconnect-flood.json): ${sources}.`].join('\n');
}

interface StormResults {
  entries: {
    setting: string; clients: number; catalogue: string; provenance: Results['provenance'];
    medians: { idleP99: number; stormP99: number; ratio: number };
    rounds: { ratio: number; storm: { requests: number; ok: number; refused: number; p50: number; p99: number } }[];
  }[];
}

/** bench:storm's storms (scripts/expensive-reads-storm.ts --save expensive-reads): a product page's p99 beside each. */
function stormBlock(dir: string): string {
  const { entries: storms } = read<StormResults>(dir, 'expensive-reads');
  const lines = ['| API started with | catalogue | storm clients | product page p99 alone → beside the storm (median) | ratio, each round | median | the storm: answered 200 / 429 a round, p50 |', '| --- | --- | --- | --- | --- | --- | --- |'];
  // The defaults first, by client count; then each other setting as saved.
  const isDefault = (s: StormResults['entries'][number]) => s.setting.startsWith('the defaults');
  const ordered = [...storms.filter(isDefault).sort((a, b) => a.catalogue.localeCompare(b.catalogue) || a.clients - b.clients), ...storms.filter((s) => !isDefault(s))];
  for (const s of ordered) {
    const answered = s.rounds.map((r) => `${int(r.storm.ok)} / ${int(r.storm.refused)}`).join(', ');
    lines.push(`| ${s.setting} | ${s.catalogue} | ${s.clients} | ${s.medians.idleP99.toFixed(1)} → ${s.medians.stormP99.toFixed(1)} ms | ${s.rounds.map((r) => `${r.ratio.toFixed(2)}x`).join(', ')} | ${s.medians.ratio.toFixed(2)}x | ${answered}; ${range(s.rounds.map((r) => r.storm.p50), (n) => n.toFixed(0))} ms |`);
  }
  const sources = ordered.map((s) => `\`${s.provenance.command}\` (host load average ${loadOf(s)})`).join('; ');
  return [...lines, '', `[expensive-reads.json](performance/expensive-reads.json): ${sources}.`].join('\n');
}

interface TracesResults {
  provenance: Results['provenance'];
  medians: { mode: string; route: string; rps: number; cpuUs: number; ratioToOff?: number }[];
  rounds: { round: number; mode: string; route: string; rps: number }[];
}

const TRACES_MODES: Record<string, string> = { off: 'off', 0: 'always_off (nothing sampled)', 100: 'always_on (every request)' };

/** bench:traces (scripts/traces-throughput.ts --save traces): throughput and CPU a request per traces mode, against off in the same rounds. */
function tracesBlock(dir: string): string {
  const results = read<TracesResults>(dir, 'traces');
  const routes = [...new Set(results.medians.map((m) => m.route))];
  const lines = [`| traces | ${routes.map((route) => `${route}: requests/s, median (CPU a request) | against off, each round → median`).join(' | ')} |`, `| --- |${routes.map(() => ' --- | --- |').join('')}`];
  for (const mode of [...new Set(results.medians.map((m) => m.mode))]) {
    const cells = routes.map((route) => {
      const m = results.medians.find((x) => x.mode === mode && x.route === route)!;
      const ratios = results.rounds.filter((r) => r.mode === mode && r.route === route).map((r) => r.rps / results.rounds.find((o) => o.mode === 'off' && o.route === route && o.round === r.round)!.rps);
      return `${int(m.rps)} (${int(m.cpuUs)} µs) | ${m.ratioToOff === undefined ? '' : `${ratios.map((x) => `${x.toFixed(2)}x`).join(', ')} → ${m.ratioToOff.toFixed(2)}x`}`;
    });
    lines.push(`| ${TRACES_MODES[mode] ?? `${mode}% sampled`} | ${cells.join(' | ')} |`);
  }
  const rounds = new Set(results.rounds.map((r) => r.round)).size;
  return [...lines, '', `Medians of ${rounds} rounds; [traces.json](performance/traces.json): \`${results.provenance.command}\` (host load average ${loadOf(results)}).`].join('\n');
}

interface CapacityResults {
  provenance: Results['provenance'];
  results: { route: string; cache: string; api?: string; median: { rps: number; apiMs: number; pgMs: number; redisOps: number; redisUs: number } }[];
}

const CAPACITY_ROUTES = [
  { route: 'REST styles', what: '`GET /products/:id/styles`' },
  { route: 'GraphQL page POST', what: 'GraphQL page by POST' },
  { route: 'GraphQL page APQ GET', what: 'GraphQL page by persisted GET' },
];

/** bench:capacity (--save capacity): CPU a request of each part, cache off and as misses in the default set-up. */
function capacityBlock(dir: string): string {
  const { provenance, results } = read<CapacityResults>(dir, 'capacity');
  const of = (route: string, cache: string) => results.find((r) => r.route === route && r.cache === cache && r.api === undefined)?.median;
  const lines = ['| request | API, cache off | API, misses | Postgres, off / misses | Redis commands, CPU a miss | all three, misses over off |', '| --- | --- | --- | --- | --- | --- |'];
  for (const { route, what } of CAPACITY_ROUTES) {
    const off = of(route, 'uncached');
    const misses = of(route, 'misses');
    if (!off || !misses) throw new Error(`docs/performance/capacity.json has no ${route} uncached and misses: run bench:capacity with both`);
    const ratio = (misses.apiMs + misses.pgMs + misses.redisUs / 1000) / (off.apiMs + off.pgMs);
    lines.push(`| ${what} | ${off.apiMs.toFixed(3)} | ${misses.apiMs.toFixed(3)} | ${off.pgMs.toFixed(3)} / ${misses.pgMs.toFixed(3)} | ${misses.redisOps.toFixed(2)}, ${misses.redisUs.toFixed(1)} µs | ${ratio.toFixed(2)}x |`);
  }
  return [...lines, '', `Milliseconds of CPU a request, medians of the runs; [capacity.json](performance/capacity.json): \`${provenance.command}\` (host load average ${loadOf({ provenance })}).`].join('\n');
}

interface ExplainResults { provenance: Results['provenance']; statements: ExplainedStatement[] }
/** bench:explain on each catalogue shape: the default (--save explain) and the second (--save explain-shape-b). */
const EXPLAIN_SHAPES = [{ file: 'explain', what: 'default' }, { file: 'explain-shape-b', what: 'second shape' }];
const KIND = 'facets kind: ';
const explainSource = (file: string, results: ExplainResults) => `[${file}.json](performance/${file}.json): \`DATABASE_URL=…/${results.provenance.data.database} ${results.provenance.command}\``;

/** docs/browse.md: every statement bench:explain runs (but the facet kinds'), default shape: the third execution's time and buffers. */
function statementsBlock(dir: string): string {
  const results = read<ExplainResults>(dir, 'explain');
  const lines = ['| request | execution | buffers |', '| --- | --- | --- |'];
  for (const s of results.statements.filter((x) => !x.label.startsWith(KIND))) lines.push(`| ${s.label.replaceAll('|', '\\|')} | ${s.executionMs.toFixed(2)} ms | ${int(s.buffers)} |`);
  return [...lines, '', `${int(Number(results.provenance.data.products))} products; ${explainSource('explain', results)}.`].join('\n');
}

/** docs/browse.md: the facets of each kind of search text, with the counts kept for common words and without, on each shape. */
function keptCountsBlock(dir: string): string {
  const shapes = shapesOf<ExplainResults>(dir, EXPLAIN_SHAPES);
  const lines = ['| kind of search text | catalogue | search | execution, buffers | without the kept counts |', '| --- | --- | --- | --- | --- |'];
  for (const { what, results } of shapes) {
    const kinds = results.statements.filter((x) => x.label.startsWith(KIND));
    kinds.forEach((s, i) => {
      if (s.label.includes('matches counted')) return;
      const next = kinds[i + 1];
      const without = next?.label.includes('matches counted') ? `${next.executionMs.toFixed(1)} ms, ${int(next.buffers)}` : 'the same (no kept counts apply)';
      const [, kind, text] = /^facets kind: (.*?) "(.*?)"/.exec(s.label) ?? [];
      lines.push(`| ${kind} | ${what} | "${text}" | ${s.executionMs.toFixed(1)} ms, ${int(s.buffers)} | ${without} |`);
    });
  }
  return [...lines, '', `${shapes.map(({ file, what, results }) => `${what}: ${explainSource(file, results)}`).join('; ')}.`].join('\n');
}

/** The facet kinds' scenarios of the browse bench (bench/lib/browse-requests.ts). */
const FACET_KIND_TARGETS = BROWSE.filter((t) => t.scenario.startsWith('graphql-facets-'));
/** The browse bench's closed loop: its connections and the host's cores. */
const LOOP = { connections: 10, p99Ms: 50 };

/**
 * docs/browse.md: the arithmetic of the facets' p99 budget. In a closed loop
 * of N connections, Little's law gives the mean latency N / X at X
 * requests/s, so a p99 of 50 ms needs X >= N / 50 ms, and the cores can
 * spend at most cores / X on each request. Against it, what the statements
 * that read their matches cost alone (bench:explain).
 */
function facetBoundsBlock(dir: string): string {
  const shapes = shapesOf<Results>(dir, BROWSE_SHAPES);
  const cores = shapes[0]!.results.provenance.machine.cores;
  const needed = LOOP.connections / (LOOP.p99Ms / 1000);
  const budgetMs = (cores / needed) * 1000;
  const lines = ['| kind | catalogue | requests/s | mean latency (N / X) | CPU a request, at most (cores / X) | p99 |', '| --- | --- | --- | --- | --- | --- |'];
  for (const target of FACET_KIND_TARGETS) {
    for (const { file, what, results } of shapes) {
      const m = median(results, file, target.scenario, 'off');
      lines.push(`| ${target.what.replace('facets: ', '')} | ${what} | ${int(m.rps)} | ${int((LOOP.connections / m.rps) * 1000)} ms | ${((cores / m.rps) * 1000).toFixed(1)} ms | ${m.p99.toFixed(0)} ms |`);
    }
  }
  // The statements that read matches: those of more than a thousand buffers without the kept counts.
  const reading = read<ExplainResults>(dir, 'explain').statements.filter((x) => x.label.startsWith(KIND) && x.label.includes('matches counted') && x.buffers > 1000);
  const perBuffer = middle(reading.map((x) => (x.executionMs * 1000) / x.buffers));
  const buffers = reading.map((x) => x.buffers);
  return [...lines, '', `With ${LOOP.connections} connections a p99 of ${LOOP.p99Ms} ms needs a mean latency under ${LOOP.p99Ms} ms, so at least ${int(needed)} requests/s: `
    + `${cores} cores can then spend at most ${budgetMs.toFixed(0)} ms on each request (Node, Postgres and the load generator together). `
    + `A statement that reads a search's matches spends about ${perBuffer.toFixed(1)} µs a buffer alone (the median of the default shape's statements below that read more than 1,000 buffers), `
    + `so ${budgetMs.toFixed(0)} ms buys about ${int((budgetMs * 1000) / perBuffer)} buffers; reading the matches of a common word takes ${int(Math.min(...buffers))}-${int(Math.max(...buffers))}.`].join('\n');
}

/** docs/browse.md: CPU a category page and a search cost (bench:capacity --route … --save browse-cpu), cache off. */
function requestCpuBlock(dir: string): string {
  const { provenance, results } = read<CapacityResults>(dir, 'browse-cpu');
  const lines = ['| request (the browse bench\'s bodies) | Node | Postgres | requests/s |', '| --- | --- | --- | --- |'];
  for (const { route, median: m } of results.filter((r) => r.cache === 'uncached' && r.api === undefined)) {
    lines.push(`| ${route} | ${int(m.apiMs * 1000)} µs | ${int(m.pgMs * 1000)} µs | ${int(m.rps)} |`);
  }
  return [...lines, '', `CPU a request, medians of the runs; [browse-cpu.json](performance/browse-cpu.json): \`${provenance.command}\` (host load average ${loadOf({ provenance })}).`].join('\n');
}

/** docs/performance.md: the saved soak's summary, as bench:soak printed it. */
function soakBlock(dir: string): string {
  const { provenance, result } = read<{ provenance: Results['provenance']; result: SoakResult }>(dir, 'soak');
  return ['```', ...soakSummary(result), '```', '', `${int(Number(provenance.data.products))} products; [soak.json](performance/soak.json): \`${provenance.command}\` (host load average ${loadOf({ provenance })}).`].join('\n');
}

/** docs/operations.md: the product page's trace (product-page-trace.json), span by span, as the waterfall draws it. */
function productPageTraceBlock(dir: string): string {
  const spans = readSpans(path.join(dir, 'product-page-trace.json'));
  const start = Math.min(...spans.map((span) => span.startUnixNano));
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  const lines = ['| span | starts at | takes | says |', '| --- | --- | --- | --- |'];
  for (const { span, depth } of ordered(spans)) {
    lines.push(`| ${'&nbsp;&nbsp;'.repeat(depth)}\`${span.name}\` | ${ms(span.startUnixNano - start)} ms | ${ms(span.endUnixNano - span.startUnixNano)} ms | ${note(span)} |`);
  }
  return lines.join('\n');
}

/** Each rendered block: the doc (under docs/) it is in and what renders it. */
export const DOC_BLOCKS: Record<string, { doc: string; render: (dir: string) => string }> = {
  'shop-mix': { doc: 'performance.md', render: shopMixBlock },
  'misses': { doc: 'performance.md', render: missesBlock },
  'reference': { doc: 'performance.md', render: referenceBlock },
  'browse': { doc: 'browse.md', render: browseBlock },
  'read-model-load': { doc: 'browse.md', render: readModelLoadBlock },
  'etl': { doc: 'data.md', render: etlBlock },
  'live': { doc: 'subscriptions.md', render: liveBlock },
  'postgraphile': { doc: 'performance.md', render: postgraphileBlock },
  'page-bounds': { doc: 'performance.md', render: pageBoundsBlock },
  'profile': { doc: 'performance.md', render: profileBlock },
  'pooler': { doc: 'scaling.md', render: poolerBlock },
  'topology': { doc: 'scaling.md', render: topologyBlock },
  'admission': { doc: 'caching.md', render: admissionBlock },
  'reconnect-flood': { doc: 'operations.md', render: floodBlock },
  'expensive-reads': { doc: 'browse.md', render: stormBlock },
  'statements': { doc: 'browse.md', render: statementsBlock },
  'kept-counts': { doc: 'browse.md', render: keptCountsBlock },
  'request-cpu': { doc: 'browse.md', render: requestCpuBlock },
  'facet-bounds': { doc: 'browse.md', render: facetBoundsBlock },
  'traces': { doc: 'operations.md', render: tracesBlock },
  'capacity': { doc: 'performance.md', render: capacityBlock },
  'soak': { doc: 'performance.md', render: soakBlock },
  'product-page-trace': { doc: 'operations.md', render: productPageTraceBlock },
};

const blockStart = (name: string) => `<!-- rendered: ${name} (scripts/render-performance.ts) -->`;
const BLOCK_END = '<!-- /rendered -->';
export const DOCS_DIR = path.join(ROOT, 'docs');

/** A doc with each of its blocks rendered anew; a block DOC_BLOCKS places in it and it lacks is an error. */
export function renderDoc(doc: string, text: string, dir: string = RESULTS_DIR): string {
  let out = text;
  for (const [name, block] of Object.entries(DOC_BLOCKS)) {
    if (block.doc !== doc) continue;
    const start = out.indexOf(blockStart(name));
    const end = start < 0 ? -1 : out.indexOf(BLOCK_END, start);
    if (start < 0 || end < 0) throw new Error(`docs/${doc} has no ${blockStart(name)} … ${BLOCK_END} block`);
    out = `${out.slice(0, start)}${blockStart(name)}\n${block.render(dir)}\n${out.slice(end)}`;
  }
  return out;
}

/** The docs DOC_BLOCKS renders into. */
export const renderedDocs = () => [...new Set(Object.values(DOC_BLOCKS).map((b) => b.doc))];

if (import.meta.main) {
  const check = process.argv.includes('--check');
  const files = [{ file: README, render: (text: string) => renderReadme(text) }, ...renderedDocs().map((doc) => ({ file: path.join(DOCS_DIR, doc), render: (text: string) => renderDoc(doc, text) }))];
  let differ = 0;
  for (const { file, render } of files) {
    const text = fs.readFileSync(file, 'utf8');
    const rendered = render(text);
    const name = path.relative(ROOT, file);
    if (rendered === text) console.log(`${name}: figures already current`);
    else if (check) { console.error(`${name}: figures differ from docs/performance/*.json: run npm run bench:readme`); differ++; }
    else { fs.writeFileSync(file, rendered); console.log(`${name}: figures rendered from docs/performance/*.json`); }
  }
  if (differ > 0) process.exit(1);
}
