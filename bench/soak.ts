// npm run bench:soak -- --rate <req/s> [--duration 30m] [--warmup 2m] [--scale <f> | --database-url <url>]
//                       [--scenario mixed|mixed-writes|<k6/scenarios name>] [--cache off|memory|redis] [--save <name>]
//
// The soak of issue 7: one API process on the bench catalogue, the k6 scenario
// with PROFILE=soak at a constant arrival rate for the whole duration, and the
// server's resident memory sampled every 10 s from /proc. Scenarios that write
// (mixed-writes) get an API key created for the run (API_KEY). At the end,
// every product the soak wrote and a random sample of the others are read
// through the API and compared with the database (bench/lib/consistency.ts).
// Passes when no request failed, every check passed, the resident memory at
// the end is within 10% of its level right after the warm-up, and every
// product read equals the database. Prints one line a minute and a verdict;
// saves the memory series and the k6 summary under
// .data/bench/results/<time>-soak/; with --save <name>, the result and its
// provenance in docs/performance/<name>.json (performance.md renders `soak`).
// --database-url soaks a catalogue already loaded there, as it is (the
// writing scenarios change it: soak a copy, `createdb -T`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { createBenchApiKey } from './lib/api-key.ts';
import { BenchError } from './lib/bench-error.ts';
import { compareWithDatabase, highestVersion, productsToCheck, readThroughApi } from './lib/consistency.ts';
import { ensureBenchCatalogue, loadedCatalogue } from './lib/catalogue.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';
import { mb, type SoakResult, soakSummary } from './lib/soak-summary.ts';
import { SCENARIO_DIR, ensureK6, k6Measurement, readK6Metrics } from './lib/k6.ts';
import { durationSeconds, parseScale } from './lib/plan.ts';
import { CACHE_MODES, type CacheMode, startApi } from './lib/server-process.ts';

const SAMPLE_SECONDS = 10;
/** Largest growth of resident memory from the end of the warm-up to the end of the run. */
const MAX_GROWTH = 0.1;
/** Products the soak did not write that the final check reads too. */
const UNWRITTEN_SAMPLE = 500;
/** Mismatches the final check prints (all of them are in result.json). */
const SHOWN_MISMATCHES = 5;

/** Resident set size of `pid` in bytes (Linux /proc). */
function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new BenchError(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** The pid of the process listening on `port` (the API: with one worker, the process started). */
async function serverPid(url: string): Promise<number> {
  const health = await (await fetch(`${url}/healthz`, { headers: ADMIN_HEADERS })).json() as { pid?: number };
  if (typeof health.pid !== 'number') throw new BenchError('/healthz did not say its pid');
  return health.pid;
}

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      rate: { type: 'string' },
      duration: { type: 'string', default: '30m' },
      warmup: { type: 'string', default: '2m' },
      scale: { type: 'string', default: '1' },
      scenario: { type: 'string', default: 'mixed' },
      cache: { type: 'string', default: 'off' },
      'database-url': { type: 'string' },
      save: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const rate = Number(values.rate);
  if (!(rate >= 1)) throw new UsageError('--rate <req/s> is required: half of the highest rate the stress profile met (see docs/performance.md)');
  const seconds = durationSeconds(values.duration);
  const warmup = durationSeconds(values.warmup);
  if (!(seconds > 0) || !(warmup >= 0) || warmup >= seconds) throw new UsageError('--duration and --warmup must be durations like 30m and 2m, the warm-up shorter');
  const scale = parseScale(values.scale);
  if (!fs.existsSync(path.join(SCENARIO_DIR, `${values.scenario}.ts`))) throw new UsageError(`no k6 scenario k6/scenarios/${values.scenario}.ts`);
  if (!(CACHE_MODES as readonly string[]).includes(values.cache)) throw new UsageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);

  const save = savedName(values.save);
  const config = loadConfig();
  const k6 = ensureK6();
  const database = values['database-url'] ? undefined : await openDatabase(config, console.log);
  const dir = path.join(config.dataDir, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-soak`);
  fs.mkdirSync(dir, { recursive: true });
  const catalogue = database ? await ensureBenchCatalogue(database.url, scale, config.dataDir) : await loadedCatalogue(values['database-url']!);
  const provenance = startProvenance('bench:soak', process.argv.slice(2), { products: catalogue.products });
  // For the scenarios that write; the others do not send it.
  const apiKey = await createBenchApiKey(catalogue.url, `soak ${new Date().toISOString()}`);
  // Products written during the soak get a higher version than any before it.
  const versionBefore = await highestVersion(catalogue.url);
  const api = await startApi({ databaseUrl: catalogue.url, workers: 1, cache: values.cache as CacheMode });
  try {
    const pid = await serverPid(api.url);
    console.log(`soak: ${values.scenario} at ${rate}/s for ${values.duration} against ${api.url} (pid ${pid}, cache ${values.cache}); memory sampled every ${SAMPLE_SECONDS} s`);
    const summaryFile = path.join(dir, `${values.scenario}-soak.json`);
    const child = spawn(k6, ['run', '--quiet', '--no-color', `--summary-export=${summaryFile}`, '--summary-trend-stats=avg,med,p(95),p(99),max',
      path.join(SCENARIO_DIR, `${values.scenario}.ts`)], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BASE_URL: api.url, PROFILE: 'soak', RATE: String(rate), DURATION: values.duration,
        ID_MIN: '1', ID_MAX: String(catalogue.maxId), PRODUCT_COUNT: String(catalogue.products), API_KEY: apiKey.secret },
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = Date.now();
    const samples: { second: number; rss: number }[] = [];
    const timer = setInterval(() => {
      if (!api.running()) return;
      const second = Math.round((Date.now() - started) / 1000);
      samples.push({ second, rss: residentBytes(pid) });
      if (second % 60 < SAMPLE_SECONDS) console.log(`${Math.round(second / 60)} min: resident ${mb(samples.at(-1)!.rss)}`);
    }, SAMPLE_SECONDS * 1000);
    const k6Exit = await exited;
    clearInterval(timer);
    if (!api.running()) throw new BenchError('the API process died during the soak');
    fs.writeFileSync(path.join(dir, 'memory.csv'), `second,rss_bytes\n${samples.map((s) => `${s.second},${s.rss}`).join('\n')}\n`);

    const metrics = readK6Metrics(summaryFile);
    const measured = k6Measurement(metrics);
    const checks = metrics.checks ?? {};
    const writes = { answered200: metrics.product_writes?.count ?? 0, conditional: metrics.product_writes_conditional?.count ?? 0, answered412: metrics.product_write_conflicts?.count ?? 0 };

    // Every product the soak wrote, and a sample of the others, through the API against the database.
    const { written, unwritten } = await productsToCheck(catalogue.url, versionBefore, UNWRITTEN_SAMPLE);
    const mismatches = await compareWithDatabase(catalogue.url, [...written, ...unwritten], readThroughApi(api.url));
    // Each write answered 200 moved its product's version: some product must have moved, and no more of them than writes.
    if (written.length > writes.answered200 || (writes.answered200 > 0 && written.length === 0)) {
      mismatches.push(`${writes.answered200} writes answered 200, but ${written.length} products have a version above ${versionBefore}`);
    }
    const afterWarmup = samples.find((s) => s.second >= warmup) ?? samples[0];
    const atEnd = samples.at(-1);
    if (!afterWarmup || !atEnd) throw new BenchError('no memory samples: the soak was shorter than one sample');
    const growth = atEnd.rss / afterWarmup.rss - 1;
    const failed = Math.round(measured.errors * measured.requests);
    const result: SoakResult = { scenario: values.scenario, rate, duration: values.duration, warmup: values.warmup, cache: values.cache, k6Exit, measured, checks,
      rss: { afterWarmup: afterWarmup.rss, atEnd: atEnd.rss, peak: Math.max(...samples.map((s) => s.rss)), growth },
      writes, finalCheck: { versionBefore, written: written.length, unwritten: unwritten.length, mismatches } };
    fs.writeFileSync(path.join(dir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    for (const line of soakSummary(result)) console.log(line);
    for (const line of mismatches.slice(0, SHOWN_MISMATCHES)) console.log(`  ${line}`);
    if (mismatches.length > SHOWN_MISMATCHES) console.log(`  … and ${mismatches.length - SHOWN_MISMATCHES} more in result.json`);
    console.log(`files in ${dir}`);
    const problems = [
      ...(failed > 0 ? [`${failed} requests failed`] : []),
      ...((checks.fails ?? 0) > 0 ? [`${checks.fails} checks failed`] : []),
      ...(growth > MAX_GROWTH ? [`resident memory grew ${(growth * 100).toFixed(1)}% (limit ${MAX_GROWTH * 100}%)`] : []),
      ...(mismatches.length > 0 ? [`${mismatches.length} differences between the API and the database`] : []),
    ];
    if (problems.length > 0) throw new BenchError(`soak failed: ${problems.join('; ')}`);
    console.log('soak passed: zero errors, memory within 10% of its post-warm-up level, every product read equal to the database');
    if (save) console.log(`saved to ${publish(save, { provenance: endProvenance(provenance), result })}`);
  } finally {
    await api.stop();
    await apiKey.revoke().catch((error: unknown) => console.log(`could not revoke the soak's API key: ${(error as Error).message}`));
    await database?.close();
  }
});
