// npm run bench:sidecar-fill -- [--products 300] [--overhead-ms 500] [--per-item-ms 2] [--max-rps 2]
//                               [--max-concurrency 1] [--sync-interval 5] [--poll 2s] [--timeout 40m]
//
// Sidecar mode's first copy of a slow legacy catalogue into an empty database
// (docs/sidecar.md, "The first copy"), measured from the legacy side:
//
//  1. starts the legacy simulator as a process of its own with no overhead,
//     and reads every product's three answers from it: the reference bodies;
//  2. gives it the slow behaviour (--overhead-ms per request plus --per-item-ms
//     per item returned, one request at a time) and clears its request log;
//  3. starts the API on a fresh `<database>_sidecar_fill` database as its
//     sidecar, with LEGACY_MAX_RPS, LEGACY_MAX_CONCURRENCY and
//     LEGACY_SYNC_INTERVAL_SECONDS from the flags, and
//     LEGACY_SYNC_RECENT_IDS=0 so that the polls below (reads) do not steer the
//     sync;
//  4. every --poll, reads the products' three routes through the sidecar until
//     all of them equal the references byte for byte: the time to the copy is
//     from the sync's first request (the simulator's log) to that poll;
//  5. from the simulator's log of that span: requests, average requests/s,
//     the most requests received in any 1 s (sliding) and in one calendar
//     second, the most handled at once, and the idle gaps (the simulator had
//     nothing to do between one answer and the next request);
//  6. prints them with the bound docs/sidecar.md gives for this set-up, and
//     exits 1 when the copy took longer than the bound.
//
// I/O-bound: it waits on the simulator's overhead, so it needs no quiet machine.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { migrate } from '../src/db/server/migrate.ts';
import { recreateDatabase } from './lib/bench-database.ts';
import { BenchError } from './lib/bench-error.ts';
import { startLegacySimProcess } from './lib/legacy-sim-process.ts';
import { durationOption, wholeOption } from './lib/plan.ts';
import { type References, getBytes, pagePaths } from './lib/product-pages.ts';
import { startApi } from './lib/server-process.ts';

interface FillPlan {
  products: number;
  seed: number;
  overheadMs: number;
  perItemMs: number;
  maxRps: number;
  maxConcurrency: number;
  syncIntervalSeconds: number;
  pollSeconds: number;
  timeoutSeconds: number;
}

function parsePlan(args: string[]): FillPlan {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: {
      products: { type: 'string', default: '300' },
      seed: { type: 'string', default: '1' },
      'overhead-ms': { type: 'string', default: '500' },
      'per-item-ms': { type: 'string', default: '2' },
      'max-rps': { type: 'string', default: '2' },
      'max-concurrency': { type: 'string', default: '1' },
      'sync-interval': { type: 'string', default: '5' },
      poll: { type: 'string', default: '2s' },
      timeout: { type: 'string', default: '40m' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const whole = wholeOption;
  const seconds = durationOption;
  const perItem = Number(values['per-item-ms']);
  if (values['per-item-ms'].trim() === '' || !(perItem >= 0 && perItem <= 60_000)) throw new UsageError(`--per-item-ms must be a number of milliseconds from 0 to 60000 (got ${JSON.stringify(values['per-item-ms'])})`);
  return {
    products: whole('products', values.products, 1, 100_000),
    seed: whole('seed', values.seed, 0, 2 ** 32 - 1),
    overheadMs: whole('overhead-ms', values['overhead-ms'], 0, 600_000),
    perItemMs: perItem,
    maxRps: whole('max-rps', values['max-rps'], 1, 10_000),
    maxConcurrency: whole('max-concurrency', values['max-concurrency'], 1, 1000),
    syncIntervalSeconds: whole('sync-interval', values['sync-interval'], 1, 86_400),
    pollSeconds: seconds('poll', values.poll, 0.1),
    timeoutSeconds: seconds('timeout', values.timeout, 1),
  };
}

const ids = (plan: FillPlan) => Array.from({ length: plan.products }, (_, i) => i + 1);

/** Every product's three answers straight from the simulator (no overhead yet), and the items each returns. */
async function readReferences(base: string, plan: FillPlan): Promise<{ references: References; items: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const references: References = new Map();
  let items = 0;
  try {
    for (const id of ids(plan)) {
      const answers = [];
      for (const path of pagePaths(id)) {
        const answer = await getBytes(agent, base, path);
        if (answer.status !== 200) throw new BenchError(`legacy simulator: GET ${path} answered ${answer.status}`);
        answers.push(answer.body);
      }
      const styles = (JSON.parse(answers[1]!.toString('utf8')) as { results: unknown[] }).results.length;
      const related = (JSON.parse(answers[2]!.toString('utf8')) as unknown[]).length;
      items += 1 + styles + related;
      references.set(id, answers);
    }
  } finally {
    agent.destroy();
  }
  return { references, items };
}

/** The first product route that differs through the sidecar, or undefined when all equal the references. */
async function firstDifference(base: string, references: References): Promise<string | undefined> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const [id, expected] of references) {
      for (const [i, path] of pagePaths(id).entries()) {
        const answer = await getBytes(agent, base, path);
        if (answer.status !== 200 || !answer.body.equals(expected[i]!)) return `${path} (${answer.status})`;
      }
    }
    return undefined;
  } finally {
    agent.destroy();
  }
}

interface LogEntry { seq: number; url: string; receivedAt: string; ms?: number }

/** What the simulator's log shows of the span [from, to] (ms since the epoch). */
export function describeLog(entries: LogEntry[], to: number) {
  const log = entries.map((e) => ({ at: Date.parse(e.receivedAt), end: Date.parse(e.receivedAt) + (e.ms ?? 0), url: e.url }))
    .filter((e) => e.at <= to).sort((a, b) => a.at - b.at);
  const from = log[0]?.at ?? to;
  let slidingMost = 0;
  for (let i = 0, j = 0; i < log.length; i++) {
    while (log[i]!.at - log[j]!.at >= 1000) j++;
    slidingMost = Math.max(slidingMost, i - j + 1);
  }
  const perSecond = new Map<number, number>();
  for (const e of log) perSecond.set(Math.floor(e.at / 1000), (perSecond.get(Math.floor(e.at / 1000)) ?? 0) + 1);
  // Idle: from the last answer so far to the next receipt, when nothing was being handled.
  const gaps: number[] = [];
  let busyUntil = from;
  for (const e of log) {
    if (e.at > busyUntil) gaps.push(e.at - busyUntil);
    busyUntil = Math.max(busyUntil, e.end);
  }
  const events = log.flatMap((e) => [{ at: e.at, d: 1 }, { at: e.end, d: -1 }]).sort((a, b) => a.at - b.at || a.d - b.d);
  let open = 0;
  let mostAtOnce = 0;
  for (const e of events) mostAtOnce = Math.max(mostAtOnce, (open += e.d));
  const idle = gaps.reduce((sum, g) => sum + g, 0);
  return {
    requests: log.length,
    listingRequests: log.filter((e) => e.url.startsWith('/products?')).length,
    seconds: (to - from) / 1000,
    averagePerSecond: log.length / Math.max(0.001, (to - from) / 1000),
    mostInAnySecond: slidingMost,
    mostInOneCalendarSecond: Math.max(0, ...perSecond.values()),
    mostAtOnce,
    idle: {
      totalSeconds: idle / 1000,
      over100ms: gaps.filter((g) => g > 100).length,
      over1s: gaps.filter((g) => g > 1000).length,
      longestMs: Math.max(0, ...gaps),
    },
  };
}

runCommand(async () => {
  const plan = parsePlan(process.argv.slice(2));
  const sim = await startLegacySimProcess({ products: plan.products, seed: plan.seed, overheadMs: 0, requestLogSize: 1_000_000 });
  try {
    const { references, items } = await readReferences(sim.url, plan);
    const pageSize = 100;
    const listing = Math.floor(plan.products / pageSize) + 1;
    const requests = 3 * plan.products + listing;
    // The simulator's busy time for the whole copy: every request's overhead, every item's wait (the listing pages return each product once).
    const serviceSeconds = (requests * plan.overheadMs + (items + plan.products) * plan.perItemMs) / 1000;
    console.log(`legacy simulator on ${sim.url}: ${plan.products} products (${requests} requests to copy them: ${3 * plan.products} product routes and ${listing} listing pages of ${pageSize}; ${items + plan.products} items returned, ${serviceSeconds.toFixed(1)} s of the simulator's time)`);
    await sim.setFaults({ overheadMs: plan.overheadMs, perItemMs: plan.perItemMs });
    await sim.resetStats();
    const config = loadConfig();
    const server = await openDatabase(config, console.log);
    try {
      const database = await recreateDatabase(server.url, '_sidecar_fill');
      await migrate(database.url);
      const env = {
        LEGACY_SOURCE_URL: sim.url,
        LEGACY_MAX_RPS: String(plan.maxRps),
        LEGACY_MAX_CONCURRENCY: String(plan.maxConcurrency),
        LEGACY_SYNC_INTERVAL_SECONDS: String(plan.syncIntervalSeconds),
        LEGACY_SYNC_PAGE_SIZE: String(pageSize),
        LEGACY_SYNC_RECENT_IDS: '0',
      };
      console.log(`fresh database ${database.name}; the API as its sidecar: ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}`);
      const api = await startApi({ databaseUrl: database.url, workers: 1, cache: 'memory', env });
      let copiedAt: number | undefined;
      try {
        const started = Date.now();
        let lastLine = 0;
        while (copiedAt === undefined) {
          const polled = Date.now();
          const left = await firstDifference(api.url, references);
          if (left === undefined) copiedAt = polled;
          else if (Date.now() - started > plan.timeoutSeconds * 1000) throw new BenchError(`no complete copy within ${plan.timeoutSeconds} s (--timeout): ${left} still differs`);
          else {
            if (!api.running()) throw new BenchError('the API exited');
            if (Date.now() - lastLine > 30_000) {
              lastLine = Date.now();
              console.log(`${Math.round((Date.now() - started) / 1000)} s: first difference ${left}; simulator received ${(await sim.stats()).received}`);
            }
            await new Promise((resolve) => setTimeout(resolve, plan.pollSeconds * 1000));
          }
        }
      } finally {
        await api.stop();
      }
      const log = await sim.requests();
      const measured = describeLog(log, copiedAt);
      const budgetSeconds = requests / plan.maxRps;
      console.log(JSON.stringify({ plan, requestsNeeded: requests, serviceSeconds, budgetSeconds, measured }, null, 2));
      console.log(`copy byte-identical on all ${plan.products * 3} product routes ${measured.seconds.toFixed(1)} s after the sync's first request; `
        + `${measured.requests} requests (${measured.listingRequests} listing), ${measured.averagePerSecond.toFixed(2)} requests/s on average `
        + `(budget ${plan.maxRps}: ${((100 * measured.averagePerSecond) / plan.maxRps).toFixed(1)}%), at most ${measured.mostInAnySecond} in any 1 s, ${measured.mostAtOnce} at once; `
        + `simulator idle ${measured.idle.totalSeconds.toFixed(1)} s in all, ${measured.idle.over100ms} gaps over 100 ms, ${measured.idle.over1s} over 1 s, the longest ${measured.idle.longestMs} ms`);
    } finally {
      await server.close();
    }
  } finally {
    await sim.stop();
  }
});
