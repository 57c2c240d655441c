// npm run bench -- [--scale <f> | --database-url <url>] [--generator k6|wrk] [--workers 1,2] [--cache off,memory,redis] [--warmup 5s]
//                   [--rate 500,1000,2000 | --connections 4,16,64] [--duration 15s] [--scenario <name> ...] [--hot <n>] [--api-root <dir> ...]
//                   [--setting NAME=VALUE ...] [--runs <n>] [--save <name>]
//
// Builds k6 if it is missing (or uses wrk, a much lighter generator: on two
// shared cores k6 itself takes as much CPU as the server), makes sure a
// catalogue of the requested scale is loaded in the `<database>_bench`
// database, or measures the catalogue already loaded at --database-url as it
// is (and, when a write scenario is named, creates an API key there for it),
// then for each worker count: measures the baseline handlers
// (bench/baseline-server.ts: the read-model floor, and with REST styles the
// base-tables floor), and for each cache mode starts the API and measures
// each scenario at each load step. Prints one table (rate, latency
// percentiles, errors, SQL per request, cache hit ratio, ratios to the
// baseline), REST styles against both floors, and saves results.json,
// table.md, chart.svg and chart.png under .data/bench/results/<time>/.
// --api-root measures another checkout's API beside this one's (say the
// commit before a change) on the same data in the same run; --setting
// measures this checkout's API again with an environment variable set (say
// CACHE_ADMISSION=first-miss), its rows labelled with it.
// The shop mix (`--generator wrk --scenario shop-mix --cache redis`: the
// default production set-up) is bench/lib/shop-mix.ts. Details: bench/lib/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { createBenchApiKey } from './lib/api-key.ts';
import { BenchError } from './lib/bench-error.ts';
import { hitRatio, readCacheCounters } from './lib/cache-counters.ts';
import { type BenchCatalogue, ensureBenchCatalogue, loadedCatalogue } from './lib/catalogue.ts';
import { ensureK6, runK6 } from './lib/k6.ts';
import { type Load, type Measurement, loadLabel } from './lib/measurement.ts';
import { BASELINE_SCRIPT, type BenchPlan, WRITE_SCENARIOS, estimatedSeconds, floorsOf, measuredRuns, parsePlan, scriptOf } from './lib/plan.ts';
import { SHOP_MIX_SCENARIO, type ShopMixFiles, shopMixEnv, writeShopMix } from './lib/shop-mix.ts';
import { type BrowseScenario, writeBrowseRequests } from './lib/browse-requests.ts';
import { BASELINE, BASELINE_TABLES, type BenchRow, RATIO_NOTE, floorLines, textTable } from './lib/report.ts';
import { type RunInfo, newResultsDir, saveChart, saveResults, shownRows } from './lib/results.ts';
import { endProvenance, startProvenance } from './lib/provenance.ts';
import { registerPersistedQuery, sampleStatements } from './lib/sample-requests.ts';
import { GRAPHQL_SCENARIOS } from './lib/graphql-scenarios.ts';
import { type CacheMode, type ServerProcess, startApi, startBaseline } from './lib/server-process.ts';
import { runWrk } from './lib/wrk.ts';
import { formatQuality, searchQuality } from './lib/search-quality.ts';

interface Target {
  server: ServerProcess;
  /** The scenario name in the table (BASELINE for the baseline handler). */
  scenario: string;
  /** The k6 scenario / wrk script it is measured with. */
  script: string;
  workers: number;
  cache: CacheMode | null;
  /** Another checkout's API (--api-root): its folder's name; or this one with a --setting: NAME=VALUE. */
  api?: string;
}

runCommand(async () => {
  const plan = parsePlan(process.argv.slice(2));
  const config = loadConfig();
  const k6 = plan.generator === 'k6' ? ensureK6() : '';
  console.log(`${measuredRuns(plan)} measured runs of ${plan.duration}: about ${Math.ceil(estimatedSeconds(plan) / 60)} minutes`);
  // A catalogue given by URL is measured as it is; else the generated one beside the configured database.
  const database = plan.databaseUrl ? undefined : await openDatabase(config, console.log);
  const startedAt = new Date();
  const resultsDir = newResultsDir(config.dataDir, startedAt);
  const rows: BenchRow[] = [];
  let info: RunInfo | undefined;
  let revokeKey: (() => Promise<void>) | undefined;
  let quality: string | undefined;
  try {
    // Search quality on the sample catalogue (scale 0.01): the judged queries' NDCG@10 (bench/lib/search-quality.ts).
    if (database && plan.scenarios.includes('graphql-search')) {
      const sample = await ensureBenchCatalogue(database.url, 0.01, config.dataDir, '_search_quality');
      quality = formatQuality(await searchQuality(sample.url));
      fs.writeFileSync(path.join(resultsDir, 'search-quality.txt'), `${quality}\n`);
      console.log(quality);
    }
    const catalogue: BenchCatalogue = database ? await ensureBenchCatalogue(database.url, plan.scale, config.dataDir) : await loadedCatalogue(plan.databaseUrl!);
    // Random ids over the whole catalogue, or over a hot set of the first N ids.
    const idMax = plan.hot === undefined ? catalogue.maxId : Math.min(plan.hot, catalogue.maxId);
    const summary = describe(plan, catalogue.products, database === undefined);
    const data = { products: catalogue.products, ...(database ? { scale: plan.scale, generated: 'npm run data:generate, default text' } : { database: new URL(catalogue.url).pathname.slice(1) }), ...(plan.hot ? { hot: plan.hot } : {}), summary };
    info = { plan, startedAt, products: catalogue.products, summary, provenance: startProvenance('bench', process.argv.slice(2), data) };
    const runInfo = info;
    // The write scenarios' key, in the bench database the API will run on.
    const apiKey = plan.scenarios.some((s) => WRITE_SCENARIOS.has(s)) ? await createBenchApiKey(catalogue.url, `bench ${startedAt.toISOString()}`) : undefined;
    revokeKey = apiKey?.revoke;
    if (apiKey) console.log(`writes send API key ${apiKey.prefix}… (revoked at the end) and change names and features of random products of the bench catalogue`);
    const baseEnv = {
      ID_MIN: '1', ID_MAX: String(idMax), PRODUCT_COUNT: String(catalogue.products), MAX_VUS: '400', PROFILE: 'load',
      ...(apiKey ? { API_KEY: apiKey.secret } : {}),
    };

    // The browse scenarios' request bodies (deep cursors come from the bench catalogue).
    const browseRequests = await writeBrowseRequests(path.join(resultsDir, 'requests'), catalogue.url);
    const requestsOf = (scenario: string) => browseRequests[scenario as BrowseScenario] as string | undefined;
    // The shop mix's sequence of requests, over the ids the run draws from.
    const shopMix: ShopMixFiles | undefined = plan.scenarios.includes(SHOP_MIX_SCENARIO) ? writeShopMix(path.join(resultsDir, 'requests'), idMax) : undefined;

    /** One generator run of `target` at `load`; its raw output goes to raw/<file>. */
    const generate = (target: Target, load: Load, duration: string, file: string): Measurement => {
      const requests = requestsOf(target.scenario);
      const env = {
        ...baseEnv, BASE_URL: target.server.url, ...(requests ? { BROWSE_REQUESTS: requests } : {}),
        ...(target.scenario === SHOP_MIX_SCENARIO && shopMix ? shopMixEnv(shopMix) : {}),
      };
      const output = path.join(resultsDir, 'raw', file);
      return 'rate' in load
        ? runK6(k6, target.script, { ...env, RATE: String(load.rate), DURATION: duration }, `${output}.json`)
        : runWrk(target.script, env, load.connections, duration, `${output}.txt`);
    };

    const measure = async (target: Target) => {
      const name = `${target.scenario}-w${target.workers}${target.cache ? `-${target.cache}` : ''}${target.api ? `-${target.api}` : ''}`;
      const setup = `${target.workers} worker${target.workers === 1 ? '' : 's'}${target.cache ? `, cache ${target.cache}` : ''}${target.api ? `, API at ${target.api}` : ''}`;
      const graphql = GRAPHQL_SCENARIOS[target.scenario];
      if (graphql?.transport === 'apq') await registerPersistedQuery(target.server.url, graphql.operationName, target.workers);
      console.log(`${target.scenario} (${setup}): warming up`);
      // With --hot, the warm-up fills the cache with the hot set. With Redis
      // and CACHE_ADMISSION=second-miss or doorkeeper a product's key is
      // stored on its second sighting: twice as long a warm-up stores as much
      // of it as one storing every miss.
      const warmup = plan.hot !== undefined && target.cache === 'redis' ? 2 * plan.warmupSeconds : plan.warmupSeconds;
      generate(target, plan.generator === 'k6' ? { rate: 200 } : plan.loads[0]!, `${warmup}s`, `${name}-warmup`);
      for (let run = 1; run <= plan.runs; run++) for (const load of plan.loads) {
        const ofRuns = plan.runs > 1 ? `, run ${run} of ${plan.runs}` : '';
        console.log(`${target.scenario} (${setup}): ${loadLabel(load)} for ${plan.duration}${ofRuns}`);
        const counting = target.cache !== null && target.cache !== 'off';
        const before = counting ? await readCacheCounters(target.server.url, target.workers) : undefined;
        const file = `${name}-${loadLabel(load).replace(/\W+/g, '')}${plan.runs > 1 ? `-run${run}` : ''}`;
        const measured = generate(target, load, plan.duration, file);
        if (!target.server.running()) throw new BenchError(`the server under ${target.scenario} (${setup}) exited during the run at ${loadLabel(load)}; figures so far in ${resultsDir}`);
        const after = counting ? await readCacheCounters(target.server.url, target.workers) : undefined;
        rows.push({
          ...measured,
          sql: measured.sql ?? await sampleStatements(target.scenario, target.server.url, { idMax, products: catalogue.products, apiKey: apiKey?.secret, browseRequests: requestsOf(target.scenario), shopMix }),
          scenario: target.scenario, workers: target.workers, cache: target.cache, load, ...(target.api ? { api: target.api } : {}),
          hitRatio: before && after ? hitRatio(before, after) : null,
          raw: path.join('raw', `${file}.${'rate' in load ? 'json' : 'txt'}`),
          ...(plan.runs > 1 ? { run } : {}),
        });
        saveResults(resultsDir, runInfo, rows);
      }
    };

    for (const workers of plan.workers) {
      for (const source of floorsOf(plan)) {
        const baseline = await startBaseline({ databaseUrl: catalogue.url, workers, poolSize: config.databasePoolSize, source });
        try {
          await measure({ server: baseline, scenario: source === 'tables' ? BASELINE_TABLES : BASELINE, script: BASELINE_SCRIPT, workers, cache: null });
        } finally {
          await baseline.stop();
        }
      }
      for (const cache of plan.cacheModes) {
        // This checkout's API, then each other one's (--api-root), then this one with each --setting, on the same catalogue.
        const variants = [{}, ...plan.apiRoots.map((root) => ({ root })), ...plan.settings.map((setting) => ({ setting }))] as { root?: string; setting?: Record<string, string> }[];
        for (const { root, setting } of variants) {
          const api = await startApi({ databaseUrl: catalogue.url, workers, cache, root, redisUrl: config.redis && 'url' in config.redis ? config.redis.url : undefined, env: { DATABASE_POOL_SIZE: String(config.databasePoolSize), ...setting } });
          const label = root !== undefined ? path.basename(root) : setting ? Object.entries(setting).map(([name, value]) => `${name}=${value}`).join(' ') : undefined;
          try {
            for (const scenario of plan.scenarios) await measure({ server: api, scenario, script: scenarioScript(scenario, plan.generator), workers, cache, api: label });
          } finally {
            await api.stop();
          }
        }
      }
    }
  } finally {
    await revokeKey?.().catch((error: unknown) => console.log(`could not revoke the bench API key: ${(error as Error).message}`));
    await database?.close();
  }
  if (!info) return;
  info.provenance = endProvenance(info.provenance);
  saveResults(resultsDir, info, rows, true);
  saveChart(resultsDir, info, rows);
  const sorted = shownRows(info, rows);
  console.log(`\n${info.summary}\n${textTable(sorted)}`);
  if (quality) console.log(`\n${quality}`);
  console.log(RATIO_NOTE);
  const floors = floorLines(sorted);
  if (floors.length > 0) console.log(`\nREST styles against the floors (requests/s):\n${floors.join('\n')}`);
  console.log(`\nresults.json, table.md, chart.svg, chart.png and raw generator output in ${resultsDir}`);
});

/** The script a scenario runs with: k6's own for a GraphQL POST scenario (wrk runs every GraphQL scenario by its transport). */
function scenarioScript(scenario: string, generator: BenchPlan['generator']): string {
  if (scriptOf(scenario) !== scenario) return scriptOf(scenario);
  return generator === 'k6' ? GRAPHQL_SCENARIOS[scenario]?.k6 ?? scenario : scenario;
}

function describe(plan: BenchPlan, products: number, given: boolean): string {
  const hot = plan.hot === undefined ? '' : `, hot set of ${plan.hot} ids`;
  const catalogue = given ? `the catalogue at --database-url (${products.toLocaleString('en-US')} products${hot})` : `scale ${plan.scale} (${products.toLocaleString('en-US')} products${hot})`;
  return `${catalogue}, ${os.cpus().length} cores, ${plan.generator} on the same machine, ${plan.duration} per run, API in production mode`;
}
