// npm run bench:postgraphile -- --postgraphile-dir <dir> [--database-url <url>] [--duration 10s] [--runs 3]
//                              [--connections 10] [--hot 10000] [--warmup 5s] [--check 5] [--profile] [--api-root <dir>] [--save <name>]
//
// The product page's speed side by side (issue 47, item 3), in one sitting:
// one API process (WORKERS=1, NODE_ENV=production) with the cache off, one in
// the default set-up (a Redis cache: REDIS_URL, or redis://127.0.0.1:6379),
// and PostGraphile v5 (amber preset, @graphile/simplify-inflection, the base
// tables: bench/postgraphile/server.mjs, run from --postgraphile-dir, the
// scratch folder it is installed in, never the project's dependencies). All
// three run at once, idle but for the one under load. First it checks that
// PostGraphile's page and ours carry the same values for --check ids (and
// stops if not). Then, over random ids of the whole catalogue, runs after
// runs interleaved (A B C … A B C …): REST styles, the page by POST and by
// persisted GET cache off, PostGraphile's page, and the same three as misses
// of the Redis cache; then a hot set of --hot ids, as hits (each warmed
// until 95% of a warm-up's requests are hits, 90 s at most).
// For each run: requests/s, p99, and CPU per request of the Node process
// (/proc/<pid>/stat), of the Postgres backends serving it (found by their
// application_name) and of the Redis server (when it runs here); medians of
// the runs, and the ratios the issue names (per run pair, A against B of the
// same round). With --profile, then `node --cpu-prof` of the cache-off API
// during one run of the page by POST and one of REST styles: the top
// functions by self time. Files in .data/bench/results/<time>-postgraphile/;
// --save <name> also writes docs/performance/<name>.json. Only reads: the
// database is never written (the API's start-up migration is a no-op on a
// migrated catalogue). --api-root <dir> measures another checkout's API (its
// src/main.ts; say a branch being reworked) with this harness, the same way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { queryOnce } from '../src/db/pool/query-once.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { BenchError } from './lib/bench-error.ts';
import { hitRatio, readCacheCounters } from './lib/cache-counters.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { operationText } from './lib/graphql-scenarios.ts';
import { durationOption, wholeOption } from './lib/plan.ts';
import {
  type CpuProfile, POSTGRAPHILE_PAGE_QUERY, firstDifference, ourPage, postgraphilePage, ratioOf, topSelfTime,
} from './lib/postgraphile-page.ts';
import { median } from './lib/median.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';
import { registerPersistedQuery } from './lib/sample-requests.ts';
import { type ServerProcess, type SpawnedServer, spawnServer, startApi } from './lib/server-process.ts';
import { runWrk } from './lib/wrk.ts';

const SERVER_FILE = path.join(import.meta.dirname, 'postgraphile', 'server.mjs');
/** The name the server file gets in the scratch folder, beside its node_modules. */
const SCRATCH_SERVER = 'catalogue-bench-server.mjs';
/** The longest a hot-set target is warmed up for, in parts of --warmup, waiting for its hits. */
const HOT_WARMUP_LIMIT_S = 90;
const INSTALL = (dir: string) => `install it there first (Node >= 22; outside the project):\n  mkdir -p ${dir} && cd ${dir} && npm init -y && npm install postgraphile@^5 @graphile/simplify-inflection`;

interface Target {
  /** The row's name. */
  name: string;
  /** rest-styles | graphql-product-page | graphql-product-page-apq | postgraphile-page: the wrk script (bench/wrk/, GRAPHQL_SCENARIOS). */
  scenario: string;
  server: 'off' | 'redis' | 'postgraphile';
  /** Ids 1..idMax. */
  idMax: number;
}

interface Run { rps: number; p50: number; p99: number; errors: number; requests: number; nodeMs: number; pgMs: number; redisUs: number | null; hitRatio: number | null }

interface Row extends Omit<Run, 'requests' | 'errors'> { name: string; scenario: string; server: Target['server']; runs: number; errors: number }

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      'postgraphile-dir': { type: 'string' },
      'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:55433/etl_bench' },
      duration: { type: 'string', default: '10s' },
      runs: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      hot: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '5s' },
      check: { type: 'string', default: '5' },
      profile: { type: 'boolean', default: false },
      'profile-only': { type: 'boolean', default: false },
      'api-root': { type: 'string' },
      save: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const dir = values['postgraphile-dir'];
  if (!dir) throw new UsageError(`--postgraphile-dir must name the scratch folder PostGraphile v5 is installed in; ${INSTALL('/tmp/postgraphile')}`);
  const scratch = path.resolve(dir);
  for (const pkg of ['postgraphile', '@graphile/simplify-inflection']) {
    if (!fs.existsSync(path.join(scratch, 'node_modules', pkg, 'package.json'))) throw new UsageError(`${pkg} is not installed in ${scratch}; ${INSTALL(scratch)}`);
  }
  const postgraphileVersion = (JSON.parse(fs.readFileSync(path.join(scratch, 'node_modules', 'postgraphile', 'package.json'), 'utf8')) as { version: string }).version;
  if (!postgraphileVersion.startsWith('5.')) throw new UsageError(`${scratch} has PostGraphile ${postgraphileVersion}, not v5; ${INSTALL(scratch)}`);
  if (Number(process.versions.node.split('.')[0]) < 22) throw new UsageError(`PostGraphile v5 needs Node >= 22 (this is ${process.version}): run it through npm run, which puts the project's Node first`);
  const seconds = durationOption('duration', values.duration, 1);
  if (!/^\d+s?$/.test(values.duration)) throw new UsageError('--duration must be whole seconds, e.g. 10s (wrk\'s and the profile\'s window)');
  const warmupSeconds = durationOption('warmup', values.warmup, 0);
  const runs = wholeOption('runs', values.runs, 1, 9);
  const connections = wholeOption('connections', values.connections, 1, 1000);
  const hot = wholeOption('hot', values.hot, 1, 100_000_000);
  const checks = wholeOption('check', values.check, 1, 1000);
  const save = savedName(values.save);
  const databaseUrl = values['database-url'];
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('--database-url must be a postgres:// URL');
  const apiRoot = values['api-root'] === undefined ? undefined : path.resolve(values['api-root']);
  if (apiRoot && !fs.existsSync(path.join(apiRoot, 'src/main.ts'))) throw new UsageError(`--api-root ${apiRoot} has no src/main.ts`);
  const apiCommit = apiRoot ? gitHead(apiRoot) : undefined;

  const config = loadConfig();
  const redisUrl = config.redis && 'url' in config.redis ? config.redis.url : 'redis://127.0.0.1:6379';
  const poolSize = config.databasePoolSize;
  const [{ max: maxId, count: products }] = await queryOnce<{ max: number; count: number }>(databaseUrl, 'SELECT max(id) AS max, count(*)::int AS count FROM products') as [{ max: number; count: number }];
  const idHot = Math.min(hot, maxId);
  const startedAt = new Date();
  const resultsDir = path.join(config.dataDir, 'bench', 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}-postgraphile`);
  fs.mkdirSync(path.join(resultsDir, 'raw'), { recursive: true });
  const provenance = startProvenance('bench:postgraphile', process.argv.slice(2), {
    database: new URL(databaseUrl).pathname.slice(1), products, hot: idHot, postgraphile: postgraphileVersion, poolSize,
    ...(apiRoot ? { api: { root: apiRoot, commit: apiCommit } } : {}),
    summary: `${products.toLocaleString('en-US')} products, one process each (WORKERS=1), wrk with ${connections} connections, ${values.duration} per run, ${runs} interleaved runs, random ids over the whole catalogue (hot set: ids 1..${idHot})`,
  });
  console.log(`${provenance.data.summary as string}; the API at ${apiRoot ? `${apiRoot} (${apiCommit})` : 'this checkout'}; PostGraphile ${postgraphileVersion} from ${scratch}; Redis ${redisUrl}; files in ${resultsDir}`);

  // The Redis server's pid, when it runs on this machine (its CPU per request is then measured).
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect().catch((error: unknown) => { throw new UsageError(`no Redis at ${redisUrl} (${(error as Error).message}): start one, e.g. redis-server --port 6410 --daemonize yes --save '' --appendonly no, and set REDIS_URL`); });
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? 0);
  redis.disconnect();
  const redisLocal = redisPid > 0 && cpuSeconds(redisPid) > 0;

  const application = (what: string) => `pgl-bench-${process.pid}-${what}`;
  const withApplication = (what: string) => {
    const url = new URL(databaseUrl);
    url.searchParams.set('application_name', application(what));
    return url.toString();
  };
  // wrk runs synchronously (the event loop waits), so a server's backends are read before and after a run: one
  // that was not there before started during the run (a pool reopening connections), and all its CPU counts.
  const backendsOf = (what: string) => new RunBackends(async () => (await queryOnce<{ pid: number }>(databaseUrl, 'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application(what)])).map((r) => r.pid));
  const pidOf = async (server: ServerProcess) => (await (await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS })).json() as { pid: number }).pid;

  const started: { stop(): Promise<void> }[] = [];
  const rowsOut: Row[] = [];
  const runsOut: (Run & { name: string; round: number })[] = [];
  let profiles: Record<string, ReturnType<typeof topSelfTime>> | undefined;
  try {
    // The three servers, all up at once.
    fs.copyFileSync(SERVER_FILE, path.join(scratch, SCRATCH_SERVER));
    const postgraphile = await startPostgraphile(scratch, withApplication('postgraphile'), poolSize);
    started.push(postgraphile);
    const off = await startApi({ databaseUrl: withApplication('off'), workers: 1, cache: 'off', root: apiRoot, env: { DATABASE_POOL_SIZE: String(poolSize) } });
    started.push(off);
    const cached = await startApi({ databaseUrl: withApplication('redis'), workers: 1, cache: 'redis', redisUrl, root: apiRoot, env: { DATABASE_POOL_SIZE: String(poolSize) } });
    started.push(cached);
    const servers = { off, redis: cached, postgraphile } as const;
    const pids = { off: await pidOf(off), redis: await pidOf(cached), postgraphile: postgraphile.child.pid! };
    for (const api of [off, cached]) await registerPersistedQuery(api.url, 'ProductPageWithRelatedIds');

    // The same values from both, for a few ids (the first, the last, random ones).
    const ids = [1, maxId, ...Array.from({ length: Math.max(0, checks - 2) }, () => 1 + Math.floor(Math.random() * maxId))].slice(0, checks);
    for (const id of ids) {
      const ours = await postJson(`${off.url}/graphql`, { operationName: 'ProductPageWithRelatedIds', query: operationText('ProductPageWithRelatedIds'), variables: { id: String(id) } });
      const theirs = await postJson(`${postgraphile.url}/graphql`, { query: POSTGRAPHILE_PAGE_QUERY, variables: { id } });
      if (ours.errors || theirs.errors) throw new BenchError(`product ${id}: errors (ours ${JSON.stringify(ours.errors ?? null)}, PostGraphile ${JSON.stringify(theirs.errors ?? null)})`);
      const difference = firstDifference(ourPage(ours.data.product), postgraphilePage(theirs.data.product));
      if (difference) throw new BenchError(`product ${id}: PostGraphile's page differs from ours at ${difference}`);
    }
    console.log(`the same page values from both for products ${ids.join(', ')}`);

    const measure = async (target: Target, duration: string, file: string, prime = true): Promise<Run> => {
      const server = servers[target.server];
      const env: Record<string, string> = { BASE_URL: server.url, ID_MIN: '1', ID_MAX: String(target.idMax) };
      if (target.scenario === 'postgraphile-page') env.PGL_QUERY_JSON = JSON.stringify(POSTGRAPHILE_PAGE_QUERY);
      // One unmeasured second first: the pools have their connections open again (pg closes idle ones after 10 s).
      if (prime) runWrk(target.scenario, env, connections, '1s', path.join(resultsDir, 'raw', `${file}-prime.txt`));
      const backends = backendsOf(target.server);
      await backends.start();
      const before = { node: cpuSeconds(pids[target.server]), redis: redisLocal ? cpuSeconds(redisPid) : 0, cache: target.server === 'redis' ? await readCacheCounters(server.url, 1) : undefined };
      const measured = runWrk(target.scenario, env, connections, duration, path.join(resultsDir, 'raw', `${file}.txt`));
      const pgSeconds = await backends.stop();
      const after = { node: cpuSeconds(pids[target.server]), redis: redisLocal ? cpuSeconds(redisPid) : 0, cache: target.server === 'redis' ? await readCacheCounters(server.url, 1) : undefined };
      if (!servers[target.server].running()) throw new BenchError(`the server under ${target.name} exited; figures so far in ${resultsDir}`);
      const n = Math.max(1, measured.requests);
      return {
        rps: measured.rps, p50: measured.p50, p99: measured.p99, errors: measured.errors, requests: measured.requests,
        nodeMs: ((after.node - before.node) / n) * 1000, pgMs: (pgSeconds / n) * 1000,
        redisUs: redisLocal && target.server === 'redis' ? ((after.redis - before.redis) / n) * 1e6 : null,
        hitRatio: before.cache && after.cache ? hitRatio(before.cache, after.cache) : null,
      };
    };
    const fileOf = (target: Target) => target.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

    const phases: { label: string; targets: Target[]; warmup: number; untilHits?: number }[] = [
      { label: 'random ids over the whole catalogue', warmup: warmupSeconds, targets: [
        { name: 'REST styles, cache off', scenario: 'rest-styles', server: 'off', idMax: maxId },
        { name: 'page POST, cache off', scenario: 'graphql-product-page', server: 'off', idMax: maxId },
        { name: 'page persisted GET, cache off', scenario: 'graphql-product-page-apq', server: 'off', idMax: maxId },
        { name: 'PostGraphile page POST', scenario: 'postgraphile-page', server: 'postgraphile', idMax: maxId },
        { name: 'REST styles, Redis misses', scenario: 'rest-styles', server: 'redis', idMax: maxId },
        { name: 'page POST, Redis misses', scenario: 'graphql-product-page', server: 'redis', idMax: maxId },
        { name: 'page persisted GET, Redis misses', scenario: 'graphql-product-page-apq', server: 'redis', idMax: maxId },
      ] },
      { label: `a hot set of ${idHot.toLocaleString('en-US')} ids, Redis hits`, warmup: Math.max(warmupSeconds, 5), untilHits: 0.95, targets: [
        { name: 'REST styles, Redis hot-set hits', scenario: 'rest-styles', server: 'redis', idMax: idHot },
        { name: 'page POST, Redis hot-set hits', scenario: 'graphql-product-page', server: 'redis', idMax: idHot },
        { name: 'page persisted GET, Redis hot-set hits', scenario: 'graphql-product-page-apq', server: 'redis', idMax: idHot },
      ] },
    ];
    if (values['profile-only']) phases.length = 0;
    for (const phase of phases) {
      console.log(`\n${phase.label}`);
      if (phase.warmup > 0) for (const target of phase.targets) {
        console.log(`${target.name}: warming up for ${phase.warmup}s${phase.untilHits ? ` at a time until ${phase.untilHits * 100}% of its requests are hits (${HOT_WARMUP_LIMIT_S} s at most)` : ''}`);
        // A hot set is warm once nearly every request is a hit: on a busy host a fixed time sees each key too few times
        // (the doorkeeper stores a key on its second sighting).
        for (let spent = 0, part = 1; spent < (phase.untilHits ? HOT_WARMUP_LIMIT_S : phase.warmup); spent += phase.warmup, part++) {
          const warm = await measure(target, `${phase.warmup}s`, `${fileOf(target)}-warmup${part}`, false);
          if (!phase.untilHits || (warm.hitRatio ?? 0) >= phase.untilHits) break;
        }
      }
      const byTarget = new Map<Target, Run[]>(phase.targets.map((t) => [t, []]));
      for (let round = 1; round <= runs; round++) {
        for (const target of phase.targets) {
          const run = await measure(target, values.duration, `${fileOf(target)}-run${round}`);
          byTarget.get(target)!.push(run);
          runsOut.push({ name: target.name, round, ...run });
          console.log(`${target.name}, run ${round} of ${runs}: ${formatRun(run)}`);
        }
      }
      for (const [target, measured] of byTarget) {
        const pick = (key: 'rps' | 'p50' | 'p99' | 'nodeMs' | 'pgMs') => median(measured.map((r) => r[key]));
        const nullable = (key: 'redisUs' | 'hitRatio') => (measured[0]![key] === null ? null : median(measured.map((r) => r[key] ?? 0)));
        rowsOut.push({
          name: target.name, scenario: target.scenario, server: target.server, runs: measured.length,
          rps: pick('rps'), p50: pick('p50'), p99: pick('p99'), nodeMs: pick('nodeMs'), pgMs: pick('pgMs'), redisUs: nullable('redisUs'), hitRatio: nullable('hitRatio'),
          errors: Math.max(...measured.map((r) => r.errors)),
        });
      }
    }

    if (values.profile || values['profile-only']) profiles = await profileApi({ databaseUrl, poolSize, maxId, connections, seconds, warmupSeconds, resultsDir, apiRoot });
  } finally {
    for (const server of started.reverse()) await server.stop().catch(() => {});
  }

  const ratios = ratiosOf(runsOut);
  const document = { provenance: endProvenance(provenance), rows: rowsOut, ratios, runs: runsOut, ...(profiles ? { profiles } : {}) };
  fs.writeFileSync(path.join(resultsDir, 'results.json'), `${JSON.stringify(document, null, 2)}\n`);
  const text = report(rowsOut, ratios, profiles);
  fs.writeFileSync(path.join(resultsDir, 'table.md'), `${text}\n`);
  console.log(`\n${text}`);
  if (save) console.log(`\nsaved to ${publish(save, document)}`);
  console.log(`\nresults.json, table.md and raw wrk output in ${resultsDir}`);
});

function gitHead(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** PostGraphile from the scratch folder, on a free port; up once it answers a query. */
async function startPostgraphile(scratch: string, databaseUrl: string, poolSize: number): Promise<SpawnedServer> {
  return spawnServer({
    launch: (port) => ({ script: SCRATCH_SERVER, root: scratch, env: { DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', POOL_SIZE: String(poolSize), NODE_ENV: 'production' } }),
    probe: async (server) => {
      try {
        const answer = await postJson(`${server.url}/graphql`, { query: '{ __typename }' });
        return answer.data?.__typename === 'Query' ? 'ready' : 'other';
      } catch {
        return 'waiting';
      }
    },
    intervalMs: 250,
    timeoutMs: 120_000,
    portAttempts: 3,
    stdout: 'capture',
    stderr: 'capture',
    failure: (server, probe) => new BenchError(`PostGraphile did not start on port ${server.port} (${probe === 'other' ? 'another program answers there' : `exit code ${server.child.exitCode}`}):\n${server.output()}`),
  });
}

async function postJson(url: string, body: unknown): Promise<{ data?: any; errors?: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new BenchError(`${url} answered HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return await response.json() as { data?: any; errors?: unknown };
}

/**
 * `node --cpu-prof` of a fresh cache-off API during one run of the page by
 * POST and one of REST styles (each after a warm-up, each its own process):
 * the top functions by self time over the measured run's samples.
 */
async function profileApi(options: { databaseUrl: string; poolSize: number; maxId: number; connections: number; seconds: number; warmupSeconds: number; resultsDir: string; apiRoot: string | undefined }): Promise<Record<string, ReturnType<typeof topSelfTime>>> {
  const out: Record<string, ReturnType<typeof topSelfTime>> = {};
  for (const [name, scenario] of [['page POST, cache off', 'graphql-product-page'], ['REST styles, cache off', 'rest-styles']] as const) {
    const profileDir = path.join(options.resultsDir, 'profiles', scenario);
    fs.mkdirSync(profileDir, { recursive: true });
    const api = await startApi({ databaseUrl: options.databaseUrl, workers: 1, cache: 'off', root: options.apiRoot, env: { DATABASE_POOL_SIZE: String(options.poolSize), NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } });
    const env = { BASE_URL: api.url, ID_MIN: '1', ID_MAX: String(options.maxId) };
    let stopMs: number;
    try {
      console.log(`\nprofiling the API under ${name}`);
      runWrk(scenario, env, options.connections, `${Math.max(3, options.warmupSeconds)}s`, path.join(options.resultsDir, 'raw', `profile-${scenario}-warmup.txt`));
      const measured = runWrk(scenario, env, options.connections, `${options.seconds}s`, path.join(options.resultsDir, 'raw', `profile-${scenario}.txt`));
      console.log(`${name} under the profiler: ${measured.rps.toFixed(0)} req/s`);
    } finally {
      const stopping = Date.now();
      await api.stop();
      stopMs = Date.now() - stopping;
    }
    const files = fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    if (files.length === 0) throw new BenchError(`the API wrote no CPU profile in ${profileDir}`);
    const profile = JSON.parse(fs.readFileSync(path.join(profileDir, files[0]!), 'utf8')) as CpuProfile;
    // The measured run: the profile's last `seconds`, less the shutdown.
    const to = profile.endTime - profile.startTime - stopMs * 1000;
    out[name] = topSelfTime(profile, { from: to - options.seconds * 1e6, to }, 20);
  }
  return out;
}

interface Ratio { what: string; target: string; median: number; min: number; max: number }

/** The issue's ratios, from the runs (paired by round). */
function ratiosOf(runs: readonly (Run & { name: string })[]): Ratio[] {
  const rps = (name: string) => runs.filter((r) => r.name === name).map((r) => r.rps);
  const pairs: [string, string, string, string][] = [
    ['page POST against REST styles, cache off', '>= 0.8', 'page POST, cache off', 'REST styles, cache off'],
    ['page POST (ours, cache off) against PostGraphile', '>= 5', 'page POST, cache off', 'PostGraphile page POST'],
    ['REST styles: Redis misses against cache off', '>= 0.87', 'REST styles, Redis misses', 'REST styles, cache off'],
    ['page POST: Redis misses against cache off', '>= 0.87', 'page POST, Redis misses', 'page POST, cache off'],
    ['page persisted GET: Redis misses against cache off', '>= 0.87', 'page persisted GET, Redis misses', 'page persisted GET, cache off'],
  ];
  return pairs.filter(([, , a, b]) => rps(a).length > 0 && rps(b).length > 0).map(([what, target, a, b]) => ({ what, target, ...ratioOf(rps(a), rps(b)) }));
}

const fixed = (n: number | null, digits: number) => (n === null ? '-' : n.toFixed(digits));

function formatRun(run: Run): string {
  return `${run.rps.toFixed(0)} req/s, p99 ${run.p99.toFixed(1)} ms, Node ${run.nodeMs.toFixed(3)} ms CPU/req, Postgres ${run.pgMs.toFixed(3)} ms CPU/req`
    + `${run.redisUs === null ? '' : `, Redis ${run.redisUs.toFixed(1)} µs CPU/req`}${run.hitRatio === null ? '' : `, hits ${(run.hitRatio * 100).toFixed(1)}%`}${run.errors > 0 ? `, ${(run.errors * 100).toFixed(2)}% errors` : ''}`;
}

function report(rows: readonly Row[], ratios: readonly Ratio[], profiles: Record<string, ReturnType<typeof topSelfTime>> | undefined): string {
  const lines = [
    '| request | req/s | p50 ms | p99 ms | Node CPU ms/req | Postgres CPU ms/req | Redis CPU µs/req | hit ratio | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.nodeMs.toFixed(3)} | ${r.pgMs.toFixed(3)} | ${fixed(r.redisUs, 1)} | ${r.hitRatio === null ? '-' : `${(r.hitRatio * 100).toFixed(1)}%`} | ${(r.errors * 100).toFixed(2)}% |`),
    '',
    '| ratio (requests/s) | median | runs paired | target |',
    '| --- | ---: | --- | --- |',
    ...ratios.map((r) => `| ${r.what} | ${r.median.toFixed(2)}x | ${r.min.toFixed(2)}-${r.max.toFixed(2)}x | ${r.target} |`),
  ];
  for (const [name, profile] of Object.entries(profiles ?? {})) {
    lines.push('', `Node CPU profile, ${name}: self time, as shares of the ${profile.samples} busy samples of the measured run (${(profile.idle * 100).toFixed(0)}% of its samples idle):`, '');
    lines.push('| function | share |', '| --- | ---: |', ...profile.functions.map((f) => `| ${f.name.replaceAll('|', '\\|')} | ${(f.share * 100).toFixed(1)}% |`));
    lines.push('', '| package or folder | share |', '| --- | ---: |', ...profile.packages.map((f) => `| ${f.name.replaceAll('|', '\\|')} | ${(f.share * 100).toFixed(1)}% |`));
  }
  return lines.join('\n');
}


/** The CPU of one server's Postgres backends over a run, read before and after it (a backend started meanwhile counts whole). */
class RunBackends {
  private readonly before = new Map<number, number>();
  private readonly list: () => Promise<number[]>;

  constructor(list: () => Promise<number[]>) {
    this.list = list;
  }

  async start(): Promise<void> {
    for (const pid of await this.list()) this.before.set(pid, cpuSeconds(pid));
  }

  /** CPU seconds used since start() by the backends alive now (one that ended during the run is not counted). */
  async stop(): Promise<number> {
    let total = 0;
    for (const pid of await this.list()) total += cpuSeconds(pid) - (this.before.get(pid) ?? 0);
    return total;
  }
}
