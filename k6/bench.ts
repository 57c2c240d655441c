// npm run bench -- [--scale <f>] [--generator k6|wrk] [--rate <req/s>] [--connections <n>]
//                   [--duration <time>] [--scenario <name> ...]
//
// Builds k6 if it is missing (or uses wrk, a much lighter generator: on two
// shared cores k6 itself takes as much CPU as the server), makes sure a catalogue of the requested scale is
// loaded in the `<database>_bench` database, starts the API on it (response
// cache off), runs each k6 scenario at a constant arrival rate and prints one
// table: achieved requests per second, latency percentiles, error rate and SQL
// statements per request. Raw k6 summaries go to .data/bench/results/.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { ensureBenchDatabase } from '../src/db/bench-database.ts';
import { openDatabase } from '../src/db/database.ts';
import { freePort } from '../src/util/free-port.ts';
import { generateCatalogue, readManifest } from '../etl/generate/generate.ts';
import { queryOnce as query } from '../src/db/query-once.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const K6_VERSION = 'v1.8.1';
const K6_BIN = process.env.K6_BIN ?? path.join(os.homedir(), '.cache', 'catalogue-api', 'bin', 'k6');
const SCENARIOS = ['graphql-product-styles', 'rest-styles', 'rest-products-page', 'graphql-apq'];
/** Scenarios only wrk can run (k6 has its own scripts for the others). */
const WRK_ONLY = new Set(['graphql-apq']);
const PRODUCT_WITH_STYLES = 'query ProductWithStyles($id: ID!) { product(id: $id) { id name defaultPrice styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } } } }';
const PRODUCT_WITH_STYLES_HASH = crypto.createHash('sha256').update(PRODUCT_WITH_STYLES).digest('hex');

/** Registers the nested query's text under its hash, so hash-only requests work. */
async function registerPersistedQuery(baseUrl: string): Promise<void> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: PRODUCT_WITH_STYLES, variables: { id: '1' }, extensions: { persistedQuery: { version: 1, sha256Hash: PRODUCT_WITH_STYLES_HASH } } }),
  });
  if (!response.ok) throw new Error(`registering the persisted query failed: HTTP ${response.status}`);
}

function ensureK6(): string {
  if (fs.existsSync(K6_BIN)) return K6_BIN;
  console.log(`building k6 ${K6_VERSION} into ${path.dirname(K6_BIN)} (about 3 minutes, once)`);
  const result = spawnSync('go', ['install', `go.k6.io/k6@${K6_VERSION}`], {
    stdio: 'inherit', env: { ...process.env, GOBIN: path.dirname(K6_BIN), PATH: `${process.env.PATH}:/usr/local/go/bin` },
  });
  if (result.status !== 0 || !fs.existsSync(K6_BIN)) throw new UsageError('could not build k6: install Go, or set K6_BIN to a k6 binary');
  return K6_BIN;
}


/** Loads the catalogue at `scale` into the bench database unless it is already there. */
async function ensureCatalogue(bench: string, name: string, scale: number, dataDir: string): Promise<number> {
  const dir = path.join(dataDir, 'bench', `scale-${scale}`);
  let manifest = readManifest(dir);
  const loaded = await query<{ n: string }>(bench, `SELECT count(*) AS n FROM products`).catch(() => [{ n: '0' }]);
  if (manifest?.scale === scale && Number(loaded[0]?.n) === manifest.expected.products) {
    console.log(`using the scale-${scale} catalogue already in ${name} (${manifest.expected.products.toLocaleString('en-US')} products)`);
    return manifest.expected.products;
  }
  if (manifest?.scale !== scale) {
    console.log(`generating scale ${scale} into ${dir}`);
    manifest = await generateCatalogue({ scale, seed: 1, out: dir });
  }
  console.log(`loading it into ${name}`);
  const result = spawnSync(process.execPath, ['--max-old-space-size=128', path.join(ROOT, 'etl/load/cli.ts'), '--dir', dir, '--replace'], {
    stdio: 'inherit', env: { ...process.env, DATABASE_URL: bench },
  });
  if (result.status !== 0) throw new Error('loading the bench catalogue failed');
  return manifest.expected.products;
}

type CacheMode = 'off' | 'memory' | 'redis';

async function startServer(databaseUrl: string, port: number, cache: CacheMode) {
  const cacheEnv = cache === 'off'
    ? { CACHE: 'off' }
    : { CACHE: 'on', REDIS_URL: cache === 'redis' ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : '', CACHE_PREFIX: `bench${Date.now()}:` };
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main.ts')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...cacheEnv },
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('the API did not start within 30 s');
}

interface Row { scenario: string; generator: string; cache: string; hitRatio: number | null; load: string; rps: number; p50: number; p95: number; p99: number; errors: number; dropped: number; sql: number | null }

function runK6(k6: string, scenario: string, env: Record<string, string>, summaryFile: string): Row {
  const result = spawnSync(k6, ['run', '--quiet', '--no-color', `--summary-export=${summaryFile}`, '--summary-trend-stats=avg,med,p(95),p(99),max', path.join(ROOT, 'k6/scenarios', `${scenario}.ts`)], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env },
  });
  if (!fs.existsSync(summaryFile)) throw new Error(`k6 failed for ${scenario} (exit ${result.status})`);
  const metrics = (JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as { metrics: Record<string, Record<string, number>> }).metrics;
  const duration = metrics.http_req_duration ?? {};
  return {
    scenario,
    generator: 'k6',
    cache: env.CACHE_MODE ?? 'off',
    hitRatio: null,
    load: `${env.RATE}/s`,
    rps: metrics.http_reqs?.rate ?? 0,
    p50: duration.med ?? NaN,
    p95: duration['p(95)'] ?? NaN,
    p99: duration['p(99)'] ?? NaN,
    errors: metrics.http_req_failed?.value ?? 0,
    dropped: metrics.dropped_iterations?.count ?? 0,
    sql: metrics.sql_statements?.avg ?? null,
  };
}

/** wrk prints durations as 2.21ms, 850.00us or 1.02s. */
function milliseconds(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function wrkSeconds(duration: string): string {
  return /^\d+$/.test(duration) ? `${duration}s` : duration;
}

function runWrk(scenario: string, env: Record<string, string>, connections: number, duration: string, outputFile: string): Row {
  const result = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${wrkSeconds(duration)}`, '--latency', '-s', path.join(ROOT, 'k6/wrk', `${scenario}.lua`), env.BASE_URL as string], {
    encoding: 'utf8', env: { ...process.env, ...env },
  });
  if (result.error || result.status !== 0) throw new UsageError(`wrk failed for ${scenario}: ${result.error?.message ?? result.stderr}; install it with apt-get install wrk`);
  fs.writeFileSync(outputFile, result.stdout);
  const out = result.stdout;
  const percentile = (p: string) => milliseconds(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1]);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  // Unknown ids are not generated (ids are dense), so any non-2xx is a failure.
  const failures = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
    + (socketErrors ? socketErrors.slice(1).reduce((n, v) => n + Number(v), 0) : 0);
  return {
    scenario, generator: 'wrk', cache: env.CACHE_MODE ?? 'off', hitRatio: null, load: `${connections} conn`,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: percentile('50'), p95: Number.NaN, p99: percentile('99'),
    errors: total > 0 ? failures / total : 0, dropped: 0, sql: null,
  };
}

/**
 * SQL statements per request for a wrk scenario, from the x-sql-statements
 * header of a sample of the same requests (wrk's per-response Lua hook would
 * cost the generator more CPU than the measurement is worth).
 */
async function sampleStatements(scenario: string, baseUrl: string, idMax: number, products: number): Promise<{ sql: number; hitRatio: number }> {
  const query = PRODUCT_WITH_STYLES;
  let sum = 0;
  let hits = 0;
  const samples = 50;
  for (let i = 0; i < samples; i++) {
    const id = 1 + Math.floor(Math.random() * idMax);
    // Each sample is the same request the scenario's wrk script sends (same cache key).
    const apq = `operationName=ProductWithStyles&variables=${encodeURIComponent(JSON.stringify({ id: String(id) }))}&extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: PRODUCT_WITH_STYLES_HASH } }))}`;
    const response = scenario === 'graphql-apq'
      ? await fetch(`${baseUrl}/graphql?${apq}`)
      : scenario === 'graphql-product-styles'
      ? await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { id: String(id) } }) })
      : scenario === 'rest-styles'
        ? await fetch(`${baseUrl}/products/${id}/styles`)
        : await fetch(`${baseUrl}/products?page=${1 + Math.floor(Math.random() * Math.ceil(products / 5))}&count=5`);
    await response.arrayBuffer();
    sum += Number(response.headers.get('x-sql-statements'));
    if (response.headers.get('x-cache') === 'hit') hits++;
  }
  return { sql: sum / samples, hitRatio: hits / samples };
}

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      scale: { type: 'string', default: '0.01' },
      rate: { type: 'string', default: '1000' },
      generator: { type: 'string', default: 'k6' },
      connections: { type: 'string', default: '20' },
      duration: { type: 'string', default: '30s' },
      scenario: { type: 'string', multiple: true },
      cache: { type: 'string', multiple: true },
      hot: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const scale = Number(values.scale);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1) throw new UsageError('--scale must be a number above 0 and at most 1');
  const scenarios = values.scenario ?? SCENARIOS;
  for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new UsageError(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);

  const config = loadConfig();
  if (values.generator !== 'k6' && values.generator !== 'wrk') throw new UsageError('--generator must be k6 or wrk');
  // Several --cache values run the same scenarios once per mode, side by side.
  const cacheModes = (values.cache ?? ['off']) as CacheMode[];
  for (const mode of cacheModes) if (!['off', 'memory', 'redis'].includes(mode)) throw new UsageError('--cache must be off, memory or redis');
  const hot = values.hot === undefined ? undefined : Number(values.hot);
  if (hot !== undefined && (!Number.isInteger(hot) || hot < 1)) throw new UsageError('--hot must be a positive integer (ids 1..N)');
  const connections = Number(values.connections);
  if (!Number.isInteger(connections) || connections < 1) throw new UsageError('--connections must be a positive integer');
  // With k6, the wrk-only scenarios are left out unless asked for by name (then it is an error).
  const runnable = values.generator === 'k6' ? scenarios.filter((s) => !WRK_ONLY.has(s) || values.scenario !== undefined) : scenarios;
  for (const s of runnable) if (values.generator === 'k6' && WRK_ONLY.has(s)) throw new UsageError(`scenario ${s} needs --generator wrk`);
  const k6 = values.generator === 'k6' ? ensureK6() : '';
  const database = await openDatabase(config, console.log);
  const resultsDir = path.join(config.dataDir, 'bench', 'results', new Date().toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(resultsDir, { recursive: true });
  const rows: Row[] = [];
  try {
    const { url: bench, name } = await ensureBenchDatabase(database.url);
    const products = await ensureCatalogue(bench, name, scale, config.dataDir);
    const [{ max }] = await query<{ max: number }>(bench, 'SELECT max(id) AS max FROM products') as [{ max: number }];
    // Random ids over the whole catalogue, or over a hot set of the first N ids.
    const idMax = hot === undefined ? max : Math.min(hot, max);
    for (const cacheMode of cacheModes) {
      const port = await freePort();
      const server = await startServer(bench, port, cacheMode);
      try {
        for (const scenario of runnable) {
          const env = { BASE_URL: `http://127.0.0.1:${port}`, ID_MIN: '1', ID_MAX: String(idMax), PRODUCT_COUNT: String(products), MAX_VUS: '400', CACHE_MODE: cacheMode, APQ_HASH: PRODUCT_WITH_STYLES_HASH };
          if (scenario === 'graphql-apq') await registerPersistedQuery(env.BASE_URL);
          console.log(`${scenario} (cache ${cacheMode}): warming up`);
          if (values.generator === 'wrk') {
            runWrk(scenario, env, connections, '10s', path.join(resultsDir, `${scenario}-${cacheMode}-warmup.txt`));
            console.log(`${scenario} (cache ${cacheMode}): wrk, ${connections} connections for ${values.duration}`);
            const row = runWrk(scenario, env, connections, values.duration, path.join(resultsDir, `${scenario}-${cacheMode}.txt`));
            const sampled = await sampleStatements(scenario, env.BASE_URL, idMax, products);
            row.sql = sampled.sql;
            row.hitRatio = cacheMode === 'off' ? null : sampled.hitRatio;
            rows.push(row);
            continue;
          }
          runK6(k6, scenario, { ...env, RATE: '200', DURATION: '5s' }, path.join(resultsDir, `${scenario}-${cacheMode}-warmup.json`));
          console.log(`${scenario} (cache ${cacheMode}): ${values.rate} req/s for ${values.duration}`);
          rows.push(runK6(k6, scenario, { ...env, RATE: values.rate, DURATION: values.duration }, path.join(resultsDir, `${scenario}-${cacheMode}.json`)));
        }
      } finally {
        server.kill('SIGTERM');
      }
    }
  } finally {
    await database.close();
  }
  const header = ['scenario', 'generator', 'cache', 'hit ratio', 'load', 'achieved/s', 'p50 ms', 'p95 ms', 'p99 ms', 'errors', 'dropped', 'SQL/req'];
  const table = rows.map((r) => [r.scenario, r.generator, r.cache, r.hitRatio === null ? '-' : `${Math.round(r.hitRatio * 100)}%`, r.load, r.rps.toFixed(0), r.p50.toFixed(2), Number.isNaN(r.p95) ? '-' : r.p95.toFixed(2), r.p99.toFixed(2), `${(r.errors * 100).toFixed(2)}%`, r.dropped, r.sql === null ? '-' : r.sql.toFixed(2)].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  console.log(`\nscale ${scale}, ${os.cpus().length} cores, ${values.generator} on the same machine, one server process${hot === undefined ? '' : `, hot set of ${hot} ids`}`);
  for (const line of [header, ...table]) console.log(line.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  fs.writeFileSync(path.join(resultsDir, 'summary.json'), `${JSON.stringify({ scale, rows }, null, 2)}\n`);
  console.log(`\nraw results in ${resultsDir}`);
});
