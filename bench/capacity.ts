// npm run bench:capacity -- [--database-url <url>] [--duration 10s] [--runs 3] [--connections 8]
//                           [--hot 1000] [--hit-ratios 0.05,0.5,0.9] [--route <name> ...]
//                           [--cache uncached,misses,cached] [--api-root <dir> ...]
//
// The capacity model's inputs (docs/capacity.md), measured: for each route
// (REST styles, REST detail, REST listing, GraphQL product page, GraphQL
// listing, APQ GET, the GraphQL page by POST and by persisted GET, the shop
// mix of bench/lib/shop-mix.ts, the browse bench's category pages and
// searches) and cache state, one API process (WORKERS=1)
// is loaded with wrk (bench/wrk/capacity.lua, or the route's own script,
// --connections busy connections) and the CPU time used meanwhile is read
// from /proc/<pid>/stat (utime + stime) of the API process, of the Postgres
// backends serving its pool (found by their application_name), and of the
// run's own redis-server, with Redis's command count. The cache states:
// uncached (CACHE=off, random ids over the whole catalogue), misses (the
// default production set-up, a Redis cache, random ids over the whole
// catalogue: nearly every request a miss at full scale; the hit ratio says)
// and cached (a Redis cache, random ids of a hot set of --hot products,
// warmed first). Per request: API CPU (and so requests/s per API core),
// Postgres CPU, Redis commands and CPU; medians of --runs runs. With
// --api-root, each other checkout's API is measured the same way right after
// this one's (say the commit before a change: the same data, the same run).
// Then the deployment each target rate needs at each hit ratio. Only reads:
// the database is never written (the API migrates at start, which is a no-op
// on a migrated one). Files in .data/bench/results/<time>-capacity/; with
// --save <name>, the results with their provenance also in
// docs/performance/<name>.json (performance.md's CPU table renders `capacity`).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { queryOnce } from '../src/db/pool/query-once.ts';
import { operationsByName } from '../k6/lib/operation-text.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { BenchError } from './lib/bench-error.ts';
import { median } from './lib/median.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';
import { hitRatio, readCacheCounters } from './lib/cache-counters.ts';
import { BackendCpu, cpuSeconds } from './lib/cpu.ts';
import { freePort } from './lib/free-port.ts';
import { waitListening } from './lib/listening.ts';
import { BROWSE_SCRIPT, durationSeconds } from './lib/plan.ts';
import { type BrowseScenario, writeBrowseRequests } from './lib/browse-requests.ts';
import { registerPersistedQuery } from './lib/sample-requests.ts';
import { operationHash } from './lib/graphql-scenarios.ts';
import { shopMixEnv, writeShopMix } from './lib/shop-mix.ts';
import { startApi } from './lib/server-process.ts';
import { runWrk } from './lib/wrk.ts';
import { type Sample, capacityModel, capacityTable } from './lib/capacity-model.ts';

const OPERATIONS = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../k6/operations.graphql'), 'utf8'));
const REST_LISTING_COUNT = 5;
const GRAPHQL_LISTING_COUNT = 20;

interface Route {
  name: string; method: 'GET' | 'POST'; path: string; body?: string; pageSize?: number;
  /** A persisted query registered before the route runs. */
  persisted?: string;
  /** The route's own wrk script instead of capacity.lua (the shop mix, the browse requests). */
  script?: string;
  /** The browse scenario whose request bodies the route sends (bench/lib/browse-requests.ts). */
  browse?: BrowseScenario;
}

function graphqlBody(operation: string, variables: Record<string, string>): string {
  const text = OPERATIONS.get(operation);
  if (!text) throw new BenchError(`no operation ${operation} in k6/operations.graphql`);
  // Numbers stay placeholders here ("{page}" in quotes); the Lua script fills in the digits.
  return JSON.stringify({ query: text, variables }).replace(/"\{page\}"/g, '{page}');
}

/** A hash-only GET of an operation of k6/operations.graphql for product {id}. */
const apqPath = (operation: string) => `/graphql?operationName=${operation}&variables=${encodeURIComponent('{"id":"')}{id}${encodeURIComponent('"}')}`
  + `&extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: operationHash(operation) } }))}`;

export const ROUTES: Route[] = [
  { name: 'REST styles', method: 'GET', path: '/products/{id}/styles' },
  { name: 'REST detail', method: 'GET', path: '/products/{id}' },
  { name: 'REST listing', method: 'GET', path: `/products?page={page}&count=${REST_LISTING_COUNT}`, pageSize: REST_LISTING_COUNT },
  { name: 'GraphQL product page', method: 'POST', path: '/graphql', body: graphqlBody('ProductDetailPage', { id: '{id}' }) },
  { name: 'GraphQL listing', method: 'POST', path: '/graphql', body: graphqlBody('ProductListingPage', { page: '{page}', count: String(GRAPHQL_LISTING_COUNT) }).replace(`"count":"${GRAPHQL_LISTING_COUNT}"`, `"count":${GRAPHQL_LISTING_COUNT}`), pageSize: GRAPHQL_LISTING_COUNT },
  { name: 'APQ GET', method: 'GET', path: apqPath('ProductWithStyles'), persisted: 'ProductWithStyles' },
  // The full product page (one statement) by POST and by persisted-query GET, beside REST styles.
  { name: 'GraphQL page POST', method: 'POST', path: '/graphql', body: graphqlBody('ProductPageWithRelatedIds', { id: '{id}' }) },
  { name: 'GraphQL page APQ GET', method: 'GET', path: apqPath('ProductPageWithRelatedIds'), persisted: 'ProductPageWithRelatedIds' },
  { name: 'shop mix', method: 'GET', path: '/', script: 'shop-mix' },
  // The browse bench's category pages and searches (docs/browse.md: where a request's time goes).
  { name: 'GraphQL category page', method: 'POST', path: '/graphql', script: BROWSE_SCRIPT, browse: 'graphql-category-page' },
  { name: 'GraphQL search', method: 'POST', path: '/graphql', script: BROWSE_SCRIPT, browse: 'graphql-search' },
];

/** How the API's cache is set up for a measurement, and which ids are asked for. */
export const CACHE_STATES = ['uncached', 'misses', 'cached'] as const;
type CacheState = (typeof CACHE_STATES)[number];

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      'database-url': { type: 'string', default: 'postgres://postgres:postgres@127.0.0.1:54329/catalogue_bench' },
      duration: { type: 'string', default: '10s' },
      runs: { type: 'string', default: '3' },
      connections: { type: 'string', default: '8' },
      hot: { type: 'string', default: '1000' },
      'hit-ratios': { type: 'string', default: '0.05,0.5,0.9' },
      route: { type: 'string', multiple: true },
      cache: { type: 'string', default: CACHE_STATES.join(',') },
      'api-root': { type: 'string', multiple: true },
      save: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const seconds = durationSeconds(values.duration);
  const runs = Number(values.runs);
  const connections = Number(values.connections);
  const hot = Number(values.hot);
  const hitRatios = values['hit-ratios'].split(',').map(Number);
  if (!(seconds > 0)) throw new UsageError('--duration must be a duration like 10s');
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(connections) || connections < 1 || !Number.isInteger(hot) || hot < 1) throw new UsageError('--runs, --connections and --hot must be positive whole numbers');
  if (hitRatios.some((h) => !(h >= 0 && h <= 1))) throw new UsageError('--hit-ratios must be numbers from 0 to 1, comma-separated');
  const routes = values.route ? ROUTES.filter((r) => values.route!.includes(r.name)) : ROUTES;
  if (routes.length === 0) throw new UsageError(`--route must name one of: ${ROUTES.map((r) => r.name).join(', ')}`);
  const states = values.cache.split(',') as CacheState[];
  if (states.some((state) => !CACHE_STATES.includes(state))) throw new UsageError(`--cache must be among ${CACHE_STATES.join(', ')}`);
  const roots = [undefined, ...(values['api-root'] ?? []).map((root) => path.resolve(root))];
  for (const root of roots) if (root && !fs.existsSync(path.join(root, 'src/main.ts'))) throw new UsageError(`--api-root ${root} has no src/main.ts`);
  const save = savedName(values.save);
  const config = loadConfig();
  const databaseUrl = values['database-url'];
  const [{ max: maxId }] = await queryOnce<{ max: number }>(databaseUrl, 'SELECT max(id) AS max FROM products') as [{ max: number }];
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const provenance = startProvenance('bench:capacity', process.argv.slice(2), { maxId, hot, connections, duration: values.duration, runs });
  const dir = path.join(config.dataDir, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-capacity`);
  fs.mkdirSync(dir, { recursive: true });
  const commitOf = (root: string | undefined) => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: root }).trim();
  const apiOf = (root: string | undefined) => (root ? `${path.basename(root)} (${commitOf(root)})` : undefined);
  console.log(`capacity at ${commit}${roots.length > 1 ? ` and ${roots.slice(1).map(apiOf).join(', ')}` : ''}: ${routes.length} routes x ${states.join('/')}, ${runs} runs of ${values.duration} at ${connections} connections each, ${maxId.toLocaleString('en-US')} products (hot set ${hot})`);
  const shopMix = routes.some((route) => route.script === 'shop-mix') ? writeShopMix(path.join(dir, 'requests'), maxId) : undefined;
  const browseRequests = routes.some((route) => route.browse) ? await writeBrowseRequests(path.join(dir, 'requests'), databaseUrl) : undefined;

  const redisPort = await freePort();
  const redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis(redisPort, '127.0.0.1', { lazyConnect: true });
  const results: { route: string; cache: CacheState; api?: string; samples: Sample[]; median: Sample }[] = [];
  try {
    await waitListening('127.0.0.1', redisPort, 'redis-server');
    await redis.connect();
    const redisCommands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? 0);
    for (const cache of states) {
      for (const root of roots) {
        const api = apiOf(root);
        const application = `capacity-${process.pid}-${cache}`;
        const url = new URL(databaseUrl);
        url.searchParams.set('application_name', application);
        const server = await startApi({
          databaseUrl: url.toString(), workers: 1, cache: cache === 'uncached' ? 'off' : 'redis', redisUrl: `redis://127.0.0.1:${redisPort}`, root,
        });
        try {
          const apiPid = (await (await fetch(`${server.url}/healthz`, { headers: ADMIN_HEADERS })).json() as { pid: number }).pid;
          // The shop mix and the browse requests draw over the whole catalogue: not a hot set.
          for (const route of routes.filter((r) => !(r.script && cache === 'cached'))) {
            if (route.persisted) await registerPersistedQuery(server.url, route.persisted);
            const idMax = cache === 'cached' ? Math.min(hot, maxId) : maxId;
            const pageMax = Math.max(1, Math.floor(idMax / (route.pageSize ?? 1)));
            const env = {
              BASE_URL: server.url, ID_MAX: String(idMax), PAGE_MAX: String(pageMax), CAP_METHOD: route.method, CAP_PATH: route.path, CAP_BODY: route.body ?? '',
              ...(route.script === 'shop-mix' && shopMix ? shopMixEnv(shopMix) : {}),
              ...(route.browse && browseRequests ? { BROWSE_REQUESTS: browseRequests[route.browse] } : {}),
            };
            const script = route.script ?? 'capacity';
            const file = `${route.name.toLowerCase().replace(/\W+/g, '-')}-${cache}${root ? `-${path.basename(root)}` : ''}`;
            // Warm-up: the pool opens its connections, the cached runs fill the hot set.
            runWrk(script, env, connections, cache === 'cached' ? '6s' : '3s', path.join(dir, `${file}-warmup.txt`));
            const samples: Sample[] = [];
            for (let run = 1; run <= runs; run++) {
              const backends = new BackendCpu(async () => (await queryOnce<{ pid: number }>(databaseUrl, 'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application])).map((r) => r.pid));
              await backends.start();
              const before = { api: cpuSeconds(apiPid), redis: cpuSeconds(redisServer.pid!), commands: await redisCommands(), cache: await readCacheCounters(server.url, 1) };
              const measured = runWrk(script, env, connections, values.duration, path.join(dir, `${file}-${run}.txt`));
              const pgSeconds = await backends.stop();
              const after = { api: cpuSeconds(apiPid), redis: cpuSeconds(redisServer.pid!), commands: await redisCommands(), cache: await readCacheCounters(server.url, 1) };
              if (measured.errors > 0) throw new BenchError(`${route.name} (${cache}${api ? `, ${api}` : ''}): ${(measured.errors * 100).toFixed(2)}% of requests failed`);
              const n = measured.requests;
              samples.push({
                rps: measured.rps, p99: measured.p99,
                apiMs: ((after.api - before.api) / n) * 1000, pgMs: (pgSeconds / n) * 1000,
                // Less the first INFO call of the measurement itself (a command counts once it has run).
                redisOps: (after.commands - before.commands - 1) / n, redisUs: ((after.redis - before.redis) / n) * 1e6,
                hitRatio: hitRatio(before.cache, after.cache),
              });
            }
            const pick = (key: keyof Sample) => median(samples.map((s) => s[key] ?? 0));
            const mid: Sample = { rps: pick('rps'), p99: pick('p99'), apiMs: pick('apiMs'), pgMs: pick('pgMs'), redisOps: pick('redisOps'), redisUs: pick('redisUs'), hitRatio: samples[0]!.hitRatio === null ? null : pick('hitRatio') };
            results.push({ route: route.name, cache, ...(api ? { api } : {}), samples, median: mid });
            console.log(`${route.name}, ${cache}${api ? `, ${api}` : ''}: ${mid.rps.toFixed(0)} req/s, API ${mid.apiMs.toFixed(3)} ms CPU/req (${(1000 / mid.apiMs).toFixed(0)} req/s per core), `
              + `Postgres ${mid.pgMs.toFixed(3)} ms CPU/req, Redis ${mid.redisOps.toFixed(2)} commands and ${mid.redisUs.toFixed(1)} µs CPU/req, hit ratio ${mid.hitRatio === null ? '-' : `${(mid.hitRatio * 100).toFixed(1)}%`}, p99 ${mid.p99.toFixed(2)} ms`);
          }
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    redis.disconnect();
    redisServer.kill('SIGTERM');
  }

  const table = capacityTable(results);
  const model = capacityModel(results, hitRatios);
  console.log(`\n${table}\n\n${model}`);
  fs.writeFileSync(path.join(dir, 'result.json'), `${JSON.stringify({ commit, maxId, hot, connections, duration: values.duration, runs, results }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'capacity.md'), `Measured at ${commit}.\n\n${table}\n\n${model}\n`);
  if (save) console.log(`saved to ${publish(save, { provenance: endProvenance(provenance), results })}`);
  console.log(`\nfiles in ${dir}`);
});

