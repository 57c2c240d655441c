// npm run bench:sidecar -- [--products 100] [--overhead-ms 500] [--clients 1,3] [--page parallel|sequential]
//                          [--legacy-pages 10] [--duration 10s] [--warmup 2s] [--workers 1] [--cache memory|off]
//                          [--max-rps 50] [--max-concurrency 1] [--sync-interval 2] [--sync-timeout 300s]
//                          [--target-ratio 1000] [--target-p99-ms 10] [--legacy-only]
//
// Sidecar mode against the legacy service it fronts: a product page (detail,
// styles, related; bench/lib/product-pages.ts) loaded straight from the legacy
// simulator and through the sidecar, with 1 and 3 concurrent clients.
//
//  1. starts the legacy simulator as a process of its own, with --overhead-ms 0
//     (a fast bootstrap), and reads every product's three answers from it: the
//     reference bodies;
//  2. creates a fresh `<database>_sidecar_bench` database (on the embedded
//     server, or DATABASE_URL's), starts the API on it in production mode with
//     LEGACY_SOURCE_URL = the simulator and a sync budget for the bench
//     (LEGACY_MAX_RPS 50, LEGACY_MAX_CONCURRENCY 1), and waits until /readyz
//     says the first sync has finished (legacySync.lastSuccessAt);
//  3. checks that every product's three answers through the sidecar equal the
//     references byte for byte and carry X-Source-Age;
//  4. sets the simulator's overhead to the published 500 ms (POST /__sim/faults)
//     and measures the sidecar: per client count, a warm-up, then --duration;
//  5. stops the API (its sync worker would share the simulator's one-at-a-time
//     queue with the measurement) and measures the simulator: --legacy-pages
//     pages per client;
//  6. prints the table and the ratios, and exits 1 unless the sidecar loads
//     at least --target-ratio times as many pages per second as the legacy
//     service at the largest client count, with p99 under --target-p99-ms
//     there, and no page failed.
//
// --legacy-only skips 2-4 (no database, no API): the simulator side alone.
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { migrate } from '../src/db/server/migrate.ts';
import { ADMIN_HEADERS } from './lib/admin-token.ts';
import { recreateDatabase } from './lib/bench-database.ts';
import { BenchError } from './lib/bench-error.ts';
import { freshGet } from './lib/fresh-get.ts';
import { type LegacySimProcess, startLegacySimProcess } from './lib/legacy-sim-process.ts';
import { durationOption, wholeOption } from './lib/plan.ts';
import { type PageMode, PAGE_MODES, type References, type RunResult, getBytes, pagePaths, pageProblem, percentile, runClients } from './lib/product-pages.ts';
import { type CacheMode, type ServerProcess, startApi } from './lib/server-process.ts';

interface SidecarPlan {
  products: number;
  seed: number;
  overheadMs: number;
  clients: number[];
  page: PageMode;
  legacyPages: number;
  durationSeconds: number;
  warmupSeconds: number;
  workers: number;
  cache: CacheMode;
  maxRps: number;
  maxConcurrency: number;
  syncIntervalSeconds: number;
  syncTimeoutSeconds: number;
  targetRatio: number;
  targetP99Ms: number;
  legacyOnly: boolean;
}

interface Row extends RunResult {
  side: 'legacy' | 'sidecar';
}

function parsePlan(args: string[]): SidecarPlan {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: {
      products: { type: 'string', default: '100' },
      seed: { type: 'string', default: '1' },
      'overhead-ms': { type: 'string', default: '500' },
      clients: { type: 'string', default: '1,3' },
      page: { type: 'string', default: 'parallel' },
      'legacy-pages': { type: 'string', default: '10' },
      duration: { type: 'string', default: '10s' },
      warmup: { type: 'string', default: '2s' },
      workers: { type: 'string', default: '1' },
      cache: { type: 'string', default: 'memory' },
      'max-rps': { type: 'string', default: '50' },
      'max-concurrency': { type: 'string', default: '1' },
      'sync-interval': { type: 'string', default: '2' },
      'sync-timeout': { type: 'string', default: '300s' },
      'target-ratio': { type: 'string', default: '1000' },
      'target-p99-ms': { type: 'string', default: '10' },
      'legacy-only': { type: 'boolean', default: false },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const whole = wholeOption;
  const seconds = durationOption;
  const positive = (name: string, raw: string) => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number (got ${JSON.stringify(raw)})`);
    return value;
  };
  const clients = values.clients.split(',').map((c) => whole('clients', c.trim(), 1, 1000));
  if (!PAGE_MODES.includes(values.page as PageMode)) throw new UsageError(`--page must be one of ${PAGE_MODES.join(', ')} (got ${JSON.stringify(values.page)})`);
  if (values.cache !== 'memory' && values.cache !== 'off') throw new UsageError(`--cache must be memory or off (got ${JSON.stringify(values.cache)})`);
  return {
    products: whole('products', values.products, 1, 100_000),
    seed: whole('seed', values.seed, 0, 2 ** 32 - 1),
    overheadMs: whole('overhead-ms', values['overhead-ms'], 0, 600_000),
    clients: [...new Set(clients)].sort((a, b) => a - b),
    page: values.page as PageMode,
    legacyPages: whole('legacy-pages', values['legacy-pages'], 1, 1_000_000),
    durationSeconds: seconds('duration', values.duration, 1),
    warmupSeconds: seconds('warmup', values.warmup, 0),
    workers: whole('workers', values.workers, 1, 64),
    cache: values.cache,
    maxRps: whole('max-rps', values['max-rps'], 1, 100_000),
    maxConcurrency: whole('max-concurrency', values['max-concurrency'], 1, 1000),
    syncIntervalSeconds: whole('sync-interval', values['sync-interval'], 1, 86_400),
    syncTimeoutSeconds: seconds('sync-timeout', values['sync-timeout'], 1),
    targetRatio: positive('target-ratio', values['target-ratio']),
    targetP99Ms: positive('target-p99-ms', values['target-p99-ms']),
    legacyOnly: values['legacy-only'],
  };
}

const ids = (plan: SidecarPlan) => Array.from({ length: plan.products }, (_, i) => i + 1);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const count = (n: number) => n.toLocaleString('en-US');
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-');
const ms = (n: number) => fixed(n, n >= 100 ? 0 : 2);
const approximately = (seconds: number) => (seconds < 120 ? `${Math.ceil(seconds)} s` : `${Math.ceil(seconds / 60)} minutes`);
const times = (n: number) => (Number.isFinite(n) ? `${n >= 100 ? count(Math.round(n)) : n.toFixed(1)}x` : '-');

/** Every product's three answers, straight from the simulator (fast: its overhead is 0 here): the reference bodies. */
async function readReferences(base: string, plan: SidecarPlan): Promise<References> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const references: References = new Map();
  try {
    for (const id of ids(plan)) {
      const answers = [];
      for (const path of pagePaths(id)) {
        const answer = await getBytes(agent, base, path);
        if (answer.status !== 200) throw new BenchError(`legacy simulator: GET ${path} answered ${answer.status}: ${answer.body.toString('utf8')}`);
        answers.push(answer.body);
      }
      references.set(id, answers);
    }
  } finally {
    agent.destroy();
  }
  return references;
}

interface LegacySync {
  state?: unknown;
  lagSeconds?: unknown;
  lastSuccessAt?: unknown;
  breaker?: unknown;
  progress?: unknown;
}

/** The sidecar's sync status from the /readyz details (top level, or among the checks). */
async function legacySync(api: ServerProcess): Promise<LegacySync | undefined> {
  const answer = await freshGet(`${api.url}/readyz`, ADMIN_HEADERS);
  let body: { legacySync?: LegacySync; checks?: { legacySync?: LegacySync } };
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return undefined;
  }
  return body.legacySync ?? body.checks?.legacySync;
}

/** Until /readyz says a first full pass has finished (progress.passes ≥ 1, no product waiting for its related ones); a progress line every 5 s. */
async function waitForFirstSync(api: ServerProcess, plan: SidecarPlan): Promise<void> {
  const started = Date.now();
  const deadline = started + plan.syncTimeoutSeconds * 1000;
  // Sidecar mode shows legacySync from its start; an API without it never will.
  const noSidecarAfter = started + 15_000;
  let lastLine = 0;
  for (;;) {
    const sync = await legacySync(api).catch(() => undefined);
    const progress = sync?.progress as { passes?: number; queue?: { incomplete?: number } } | undefined;
    // A full pass, and no product left waiting for related products copied after it.
    if (sync?.lastSuccessAt && (progress?.passes ?? 0) >= 1 && (progress?.queue?.incomplete ?? 0) === 0) {
      console.log(`first sync finished in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(sync)}`);
      return;
    }
    if (!sync && Date.now() > noSidecarAfter) {
      throw new BenchError('the API shows no legacySync in its /readyz details 15 s after it started: it has no sidecar mode (LEGACY_SOURCE_URL ignored). Run this on a branch with sidecar mode (i16-sidecar)');
    }
    if (Date.now() > deadline) throw new BenchError(`the first sync did not finish within ${plan.syncTimeoutSeconds} s (--sync-timeout); last legacySync: ${JSON.stringify(sync)}`);
    if (!api.running()) throw new BenchError('the API exited while waiting for the first sync');
    if (Date.now() - lastLine >= 5000) {
      lastLine = Date.now();
      console.log(`waiting for the first sync (${Math.round((Date.now() - started) / 1000)} s): ${sync ? `state ${JSON.stringify(sync.state)}, progress ${JSON.stringify(sync.progress)}` : 'no legacySync in /readyz yet'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every product's answers through the sidecar equal the references, with X-Source-Age. */
async function verifySidecar(api: ServerProcess, references: References): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
  const problems: string[] = [];
  try {
    for (const id of references.keys()) {
      const answers = await Promise.all(pagePaths(id).map((path) => getBytes(agent, api.url, path)));
      const problem = pageProblem(id, answers, references, true);
      if (problem) problems.push(problem);
    }
  } finally {
    agent.destroy();
  }
  if (problems.length > 0) {
    throw new BenchError(`${plural(problems.length, 'product')} of ${references.size} differ through the sidecar from the simulator:\n  ${problems.slice(0, 5).join('\n  ')}`);
  }
  console.log(`all ${count(references.size * 3)} answers (${count(references.size)} products x detail, styles, related) equal the simulator's byte for byte, each with X-Source-Age`);
}

function describeRun(row: RunResult): string {
  const failures = row.failed > 0 ? `, ${row.failed} failed (first: ${row.firstProblem})` : '';
  return `${count(row.pages)} pages in ${row.seconds.toFixed(1)} s: ${fixed(row.pages / row.seconds, 2)} pages/s, p50 ${ms(percentile(row.latenciesMs, 0.5))} ms, p99 ${ms(percentile(row.latenciesMs, 0.99))} ms${failures}`;
}

async function measureSidecar(api: ServerProcess, plan: SidecarPlan, references: References): Promise<Row[]> {
  const rows: Row[] = [];
  for (const clients of plan.clients) {
    const common = { base: api.url, clients, ids: ids(plan), mode: plan.page, references, needSourceAge: true };
    if (plan.warmupSeconds > 0) {
      console.log(`sidecar, ${plural(clients, 'client')}: warming up for ${plan.warmupSeconds} s`);
      await runClients({ ...common, until: { seconds: plan.warmupSeconds }, seed: plan.seed + 100 });
    }
    console.log(`sidecar, ${plural(clients, 'client')}: measuring for ${plan.durationSeconds} s`);
    const row = await runClients({ ...common, until: { seconds: plan.durationSeconds }, seed: plan.seed });
    if (!api.running()) throw new BenchError(`the API exited during the sidecar run with ${plural(clients, 'client')}`);
    console.log(`sidecar, ${plural(clients, 'client')}: ${describeRun(row)}`);
    rows.push({ side: 'sidecar', ...row });
  }
  return rows;
}

async function measureLegacy(sim: LegacySimProcess, plan: SidecarPlan, references: References): Promise<Row[]> {
  const rows: Row[] = [];
  const perPage = (3 * plan.overheadMs) / 1000;
  for (const clients of plan.clients) {
    // Requests left in the simulator's queue (the sync worker's last one) would delay the first pages.
    for (let waited = 0; (await sim.stats()).inFlight > 0 && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    await sim.resetStats();
    const pages = plan.legacyPages * clients;
    console.log(`legacy, ${plural(clients, 'client')}: ${plural(plan.legacyPages, 'page')} per client (one request at a time, ${plan.overheadMs} ms each: about ${Math.ceil(pages * perPage)} s)`);
    const row = await runClients({
      base: sim.url, clients, ids: ids(plan), mode: plan.page, references, needSourceAge: false,
      until: { pagesPerClient: plan.legacyPages }, seed: plan.seed,
      onProgress: (done, elapsed) => console.log(`legacy, ${plural(clients, 'client')}: ${done}/${pages} pages after ${Math.round(elapsed)} s`),
      progressSeconds: 10,
    });
    const stats = await sim.stats();
    console.log(`legacy, ${plural(clients, 'client')}: ${describeRun(row)} (simulator: ${count(stats.received)} requests, at most ${stats.maxConcurrent} handled and ${stats.maxInFlight} waiting or handled at once)`);
    rows.push({ side: 'legacy', ...row });
  }
  return rows;
}

function table(rows: Row[], plan: SidecarPlan): string {
  const header = ['side', 'clients', 'pages', 'seconds', 'pages/s', 'p50 ms', 'p99 ms', 'max ms', 'failed'];
  const lines = rows.map((r) => [
    r.side, String(r.clients), count(r.pages), r.seconds.toFixed(1), fixed(r.pages / r.seconds, 2),
    ms(percentile(r.latenciesMs, 0.5)), ms(percentile(r.latenciesMs, 0.99)), ms(r.latenciesMs.at(-1) ?? Number.NaN), String(r.failed),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [`product pages (${plan.page} detail + styles + related), ${plan.products} products, legacy overhead ${plan.overheadMs} ms, ${os.cpus().length} cores, everything on this machine`, format(header), ...lines.map(format)].join('\n');
}

interface Ratio {
  clients: number;
  throughput: number;
  p50: number;
  p99: number;
  sidecarP99: number;
}

function ratios(rows: Row[], plan: SidecarPlan): Ratio[] {
  return plan.clients.flatMap((clients) => {
    const legacy = rows.find((r) => r.side === 'legacy' && r.clients === clients);
    const sidecar = rows.find((r) => r.side === 'sidecar' && r.clients === clients);
    if (!legacy || !sidecar) return [];
    return [{
      clients,
      throughput: (sidecar.pages / sidecar.seconds) / (legacy.pages / legacy.seconds),
      p50: percentile(legacy.latenciesMs, 0.5) / percentile(sidecar.latenciesMs, 0.5),
      p99: percentile(legacy.latenciesMs, 0.99) / percentile(sidecar.latenciesMs, 0.99),
      sidecarP99: percentile(sidecar.latenciesMs, 0.99),
    }];
  });
}

runCommand(async () => {
  const plan = parsePlan(process.argv.slice(2));
  const legacySeconds = plan.clients.reduce((sum, c) => sum + plan.legacyPages * c * 3 * plan.overheadMs / 1000, 0);
  const sidecarSeconds = plan.legacyOnly ? 0 : plan.clients.length * (plan.durationSeconds + plan.warmupSeconds);
  console.log(`sidecar benchmark: ${plan.products} products, clients ${plan.clients.join(', ')}, ${plan.page} pages; measuring takes about ${approximately(legacySeconds + sidecarSeconds)}${plan.legacyOnly ? ' (--legacy-only: the simulator side alone)' : ' plus the first sync'}`);

  const sim = await startLegacySimProcess({ products: plan.products, seed: plan.seed, overheadMs: 0 });
  const rows: Row[] = [];
  try {
    console.log(`legacy simulator on ${sim.url} (${plan.products} products, seed ${plan.seed}, overhead 0 ms for the bootstrap)`);
    const references = await readReferences(sim.url, plan);
    console.log(`reference bodies: ${count(references.size * 3)} answers read from the simulator`);

    if (!plan.legacyOnly) {
      const config = loadConfig();
      const server = await openDatabase(config, console.log);
      try {
        const database = await recreateDatabase(server.url, '_sidecar_bench');
        await migrate(database.url);
        console.log(`fresh database ${database.name}; starting the API (${plural(plan.workers, 'worker')}, cache ${plan.cache}) as a sidecar of ${sim.url}: LEGACY_MAX_RPS=${plan.maxRps}, LEGACY_MAX_CONCURRENCY=${plan.maxConcurrency}, LEGACY_SYNC_INTERVAL_SECONDS=${plan.syncIntervalSeconds}`);
        const api = await startApi({
          databaseUrl: database.url, workers: plan.workers, cache: plan.cache,
          env: {
            LEGACY_SOURCE_URL: sim.url,
            LEGACY_MAX_RPS: String(plan.maxRps),
            LEGACY_MAX_CONCURRENCY: String(plan.maxConcurrency),
            LEGACY_SYNC_INTERVAL_SECONDS: String(plan.syncIntervalSeconds),
          },
        });
        try {
          await waitForFirstSync(api, plan);
          await verifySidecar(api, references);
          await sim.setOverhead(plan.overheadMs);
          console.log(`legacy simulator overhead set to ${plan.overheadMs} ms`);
          rows.push(...await measureSidecar(api, plan, references));
        } finally {
          await api.stop();
        }
      } finally {
        await server.close();
      }
    } else {
      await sim.setOverhead(plan.overheadMs);
      console.log(`legacy simulator overhead set to ${plan.overheadMs} ms`);
    }
    rows.unshift(...await measureLegacy(sim, plan, references));
  } finally {
    await sim.stop();
  }

  console.log(`\n${table(rows, plan)}`);
  const failed = rows.filter((r) => r.failed > 0);
  if (plan.legacyOnly) {
    console.log('\nratios: none (--legacy-only)');
    if (failed.length > 0) throw new BenchError(`pages failed straight from the simulator (${failed.map((r) => `${r.failed} with ${plural(r.clients, 'client')}`).join(', ')})`);
    return;
  }
  const measured = ratios(rows, plan);
  console.log('\nsidecar vs legacy (pages/s ratio; how many times lower the latency):');
  for (const r of measured) console.log(`  ${plural(r.clients, 'client')}: throughput ${times(r.throughput)}, p50 ${times(r.p50)}, p99 ${times(r.p99)}`);
  const judged = measured.at(-1);
  if (!judged) throw new BenchError('no ratio to judge');
  const ratioMet = judged.throughput >= plan.targetRatio;
  const p99Met = judged.sidecarP99 < plan.targetP99Ms;
  console.log(`target at ${plural(judged.clients, 'client')}: throughput >= ${count(plan.targetRatio)}x: ${times(judged.throughput)} ${ratioMet ? 'met' : 'NOT met'}; sidecar p99 < ${plan.targetP99Ms} ms: ${ms(judged.sidecarP99)} ms ${p99Met ? 'met' : 'NOT met'}`);
  if (failed.length > 0) throw new BenchError(`pages failed: ${failed.map((r) => `${r.side} with ${plural(r.clients, 'client')}: ${r.failed} (first: ${r.firstProblem})`).join('; ')}`);
  if (!ratioMet || !p99Met) throw new BenchError('the sidecar target is not met');
});
