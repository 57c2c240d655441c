// npm run bench:pooler -- [--database-url <a loaded catalogue>] [--scenarios rest-styles,graphql-product-styles] [--connections 16]
//                         [--duration 10s] [--warmup 3s] [--runs 3] [--pool-size 10] [--scale 1] [--save pooler]
//
// What going through a transaction-mode PgBouncer costs (docs/scaling.md
// "Behind a connection pooler"). On the bench catalogue (`<database>_bench`,
// as npm run bench uses it, read only: the scenarios only read), starts
// PgBouncer in transaction mode in front of it (as many server connections
// as the API's pool) and the API processes, cache off: one connected
// directly, one through PgBouncer with DATABASE_POOLER=transaction. Per
// scenario (wrk, bench/wrk/<scenario>.lua, random ids over the whole
// catalogue): a warm-up of each, then --runs rounds measuring each, one after
// the other (the order reversed every other round), and prints the medians of
// requests/s, p50 and p99 and the ratios of the medians to direct's. A third
// API, straight to Postgres but with DATABASE_POOLER=transaction (unnamed
// statements), tells what the statements cost from what the hop costs.
// Raw wrk output: .data/bench/results/<time>/raw/. `--save <name>` keeps the
// medians in docs/performance/<name>.json; docs/scaling.md's table is
// rendered from `pooler`.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { BenchError } from './lib/bench-error.ts';
import { ensureBenchCatalogue, loadedCatalogue } from './lib/catalogue.ts';
import type { Measurement } from './lib/measurement.ts';
import { startPgBouncer } from './lib/pgbouncer.ts';
import { median } from './lib/median.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';
import { newResultsDir } from './lib/results.ts';
import { type ServerProcess, startApi } from './lib/server-process.ts';
import { runWrk } from './lib/wrk.ts';

const SCENARIOS = ['rest-styles', 'graphql-product-styles', 'rest-products-page'];
/**
 * direct: the API as usual; unnamed: straight to Postgres too, with
 * DATABASE_POOLER=transaction (statements sent unnamed, planned at every
 * execution), which tells the statements' share of the cost from the hop's;
 * pgbouncer: through PgBouncer with DATABASE_POOLER=transaction.
 */
const PATHS = ['direct', 'unnamed', 'pgbouncer'] as const;
type Path = (typeof PATHS)[number];

function parsePlan(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenarios: { type: 'string', default: 'rest-styles,graphql-product-styles' },
      connections: { type: 'string', default: '16' },
      duration: { type: 'string', default: '10s' },
      warmup: { type: 'string', default: '3s' },
      runs: { type: 'string', default: '3' },
      'pool-size': { type: 'string', default: '10' },
      scale: { type: 'string', default: '1' },
      save: { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  const scenarios = values.scenarios.split(',').map((s) => s.trim());
  const unknown = scenarios.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length > 0) throw new UsageError(`--scenarios: unknown ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})`);
  const integer = (name: string, value: string, min: number) => {
    if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer of at least ${min} (got "${value}")`);
    return Number(value);
  };
  const duration = (name: string, value: string) => {
    if (!/^\d+s?$/.test(value)) throw new UsageError(`--${name} must be seconds, e.g. 10s (got "${value}")`);
    return value.endsWith('s') ? value : `${value}s`;
  };
  const scale = Number(values.scale);
  if (!(scale > 0 && scale <= 1)) throw new UsageError(`--scale must be a number above 0, at most 1 (got "${values.scale}")`);
  return {
    scenarios, scale,
    connections: integer('connections', values.connections, 1),
    duration: duration('duration', values.duration),
    warmup: duration('warmup', values.warmup),
    runs: integer('runs', values.runs, 1),
    poolSize: integer('pool-size', values['pool-size'], 1),
    save: savedName(values.save),
    databaseUrl: values['database-url'],
  };
}

const fixed = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

runCommand(async () => {
  const plan = parsePlan(process.argv.slice(2));
  const config = loadConfig();
  // A catalogue given by URL is measured as it is; else the generated one beside the configured database.
  const database = plan.databaseUrl ? undefined : await openDatabase(config, console.log);
  const resultsDir = newResultsDir(config.dataDir, new Date());
  const stops: (() => Promise<void>)[] = [];
  try {
    const catalogue = database ? await ensureBenchCatalogue(database.url, plan.scale, config.dataDir) : await loadedCatalogue(plan.databaseUrl!);
    const provenance = startProvenance('bench:pooler', process.argv.slice(2), { products: catalogue.products, connections: plan.connections, duration: plan.duration, runs: plan.runs, poolSize: plan.poolSize });
    const saved: { scenario: string; path: Path; rps: number; p50: number; p99: number; runs: number[] }[] = [];
    const bouncer = await startPgBouncer({ databases: { catalogue: catalogue.url }, poolSize: plan.poolSize });
    stops.push(() => bouncer.stop());
    const env = { DATABASE_POOL_SIZE: String(plan.poolSize) };
    const servers: Record<Path, ServerProcess> = {
      direct: await startApi({ databaseUrl: catalogue.url, workers: 1, cache: 'off', env }),
      unnamed: await startApi({ databaseUrl: catalogue.url, workers: 1, cache: 'off', env: { ...env, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: catalogue.url } }),
      pgbouncer: await startApi({
        databaseUrl: bouncer.url('catalogue'), workers: 1, cache: 'off',
        env: { ...env, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: catalogue.url },
      }),
    };
    for (const server of Object.values(servers)) stops.push(() => server.stop());
    console.log(`PgBouncer (transaction mode, ${plan.poolSize} server connections) on port ${bouncer.port}; both APIs: 1 process, pool ${plan.poolSize}, cache off; wrk ${plan.connections} connections, ${plan.runs} runs of ${plan.duration} each`);

    const measure = (scenario: string, through: Path, duration: string, file: string): Measurement => {
      const server = servers[through];
      const measured = runWrk(scenario, { BASE_URL: server.url, ID_MAX: String(catalogue.maxId) }, plan.connections, duration, path.join(resultsDir, 'raw', `${file}.txt`));
      if (!server.running()) throw new BenchError(`the API (${through}) exited during ${scenario}; raw output in ${resultsDir}`);
      if (measured.errors > 0) throw new BenchError(`${scenario} through ${through}: ${(measured.errors * 100).toFixed(2)}% of requests failed; raw output in ${resultsDir}`);
      return measured;
    };

    const lines: string[] = [];
    for (const scenario of plan.scenarios) {
      for (const through of PATHS) {
        console.log(`${scenario} (${through}): warming up`);
        measure(scenario, through, plan.warmup, `${scenario}-${through}-warmup`);
      }
      const runs: Record<Path, Measurement[]> = { direct: [], unnamed: [], pgbouncer: [] };
      for (let run = 1; run <= plan.runs; run++) {
        for (const through of run % 2 === 1 ? PATHS : [...PATHS].reverse()) {
          const measured = measure(scenario, through, plan.duration, `${scenario}-${through}-${run}`);
          runs[through].push(measured);
          console.log(`${scenario} (${through}) run ${run}: ${fixed(measured.rps)} requests/s, p99 ${fixed(measured.p99, 2)} ms`);
        }
      }
      const rps = (through: Path) => median(runs[through].map((m) => m.rps));
      for (const through of PATHS) {
        const row = { scenario, path: through, rps: rps(through), p50: median(runs[through].map((m) => m.p50)), p99: median(runs[through].map((m) => m.p99)), runs: runs[through].map((m) => m.rps) };
        saved.push(row);
        lines.push(`| ${scenario} | ${through} | ${fixed(row.rps)} | ${fixed(row.p50, 2)} | ${fixed(row.p99, 2)} | ${row.runs.map((r) => fixed(r)).join(', ')} |`);
      }
      for (const through of ['unnamed', 'pgbouncer'] as const) lines.push(`| ${scenario} | ratio ${through} / direct | ${(rps(through) / rps('direct')).toFixed(2)} | | | |`);
    }
    console.log([
      '',
      `| scenario | path | requests/s (median of ${plan.runs}) | p50 ms | p99 ms | each run |`,
      '| --- | --- | --- | --- | --- | --- |',
      ...lines,
      '',
      `raw wrk output: ${path.join(resultsDir, 'raw')}`,
    ].join('\n'));
    if (plan.save) console.log(`saved to ${publish(plan.save, { provenance: endProvenance(provenance), rows: saved })}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await database?.close();
  }
});
