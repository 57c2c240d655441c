// What `npm run bench` will run, from its command line: every list option
// takes repeated flags or commas (`--workers 1,2`, `--cache off --cache redis`).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../src/commands/run.ts';
import type { Load } from './measurement.ts';
import { type BaselineSource, CACHE_MODES, type CacheMode } from './server-process.ts';
import { GRAPHQL_SCENARIOS } from './graphql-scenarios.ts';
import { BROWSE_SCENARIOS } from './browse-requests.ts';
import { SHOP_MIX_SCENARIO } from './shop-mix.ts';
import { savedName } from './provenance.ts';

/**
 * The browse scenarios' requests: each its own file, one script
 * (bench/wrk/graphql-browse.lua, k6/scenarios/graphql-browse.ts). They run
 * when named, so the default plan stays within 15 minutes.
 */
export const BROWSE_SCRIPT = 'graphql-browse';
export const scriptOf = (scenario: string) => ((BROWSE_SCENARIOS as readonly string[]).includes(scenario) ? BROWSE_SCRIPT : scenario);

export const SCENARIOS = [
  'graphql-product-styles', 'graphql-product-page', 'graphql-product-page-cards', 'rest-styles', 'rest-products-page',
  'graphql-apq', 'graphql-product-page-apq', 'graphql-product-page-cards-apq', 'rest-update-features', ...BROWSE_SCENARIOS, SHOP_MIX_SCENARIO,
];
/** Scenarios only wrk can run: the hash-only GETs and the shop mix (k6 has its own scripts for the others). */
export const WRK_ONLY = new Set([...Object.entries(GRAPHQL_SCENARIOS).filter(([, s]) => s.transport === 'apq').map(([name]) => name), SHOP_MIX_SCENARIO]);
/** Scenarios that run only when named: the browse scenarios and the shop mix (each longer to set up), and the writes. */
const BY_NAME_ONLY = new Set<string>([...BROWSE_SCENARIOS, SHOP_MIX_SCENARIO]);
/**
 * Scenarios that write (with the run's API key): they change the bench
 * catalogue, so they run only when named, and after the reads on each server.
 * Their rows have no ratios to the baseline handler, which reads.
 */
export const WRITE_SCENARIOS = new Set(['rest-update-features']);
/** The k6 scenario and the wrk script the baseline handlers are measured with. */
export const BASELINE_SCRIPT = 'rest-styles';

/** Three steps up to saturation of one server process on two shared cores. */
const DEFAULT_RATES = '500,1000,2000';
const DEFAULT_CONNECTIONS = '4,16,64';
/** Seconds a warm-up takes (k6 at 200/s, or wrk) before a server's first measured run of a scenario, unless --warmup says otherwise. */
export const WARMUP_SECONDS = 5;

export interface BenchPlan {
  scale: number;
  generator: 'k6' | 'wrk';
  cacheModes: CacheMode[];
  workers: number[];
  loads: Load[];
  duration: string;
  scenarios: string[];
  /** Draw ids from 1..hot only (a hot set), instead of the whole catalogue. */
  hot: number | undefined;
  /** Seconds of warm-up per scenario (long enough, with --hot and a cache, to fill the cache with the hot set). */
  warmupSeconds: number;
  /** A loaded catalogue to measure on as it is (--database-url), instead of the generated `<database>_bench`. */
  databaseUrl: string | undefined;
  /** Other checkouts of the API measured beside this one in the same run (--api-root), each row labelled with its folder's name. */
  apiRoots: string[];
  /** This checkout's API measured again with an environment variable set (--setting NAME=VALUE, e.g. CACHE_ADMISSION=first-miss), each row labelled with it. */
  settings: Record<string, string>[];
  /** Measured runs of each scenario at each load, one after another on the same server (--runs): the table shows their medians. */
  runs: number;
  /** --save <name>: the results also written to docs/performance/<name>.json, the files the docs quote. */
  save: string | undefined;
}

function list(values: string[] | undefined, fallback: string): string[] {
  return (values ?? [fallback]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function positiveIntegers(name: string, values: string[]): number[] {
  const numbers = values.map(Number);
  if (numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--${name} must be positive integers, e.g. 1,2 (got ${values.join(',') || 'nothing'})`);
  return [...new Set(numbers)].sort((a, b) => a - b);
}

/** `--scale`: a number above 0 and at most 1, or a usage error. */
export function parseScale(text: string): number {
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1) throw new UsageError('--scale must be a number above 0 and at most 1');
  return scale;
}

/** k6-style durations (30s, 1m, 1m30s, 500ms, or bare seconds) in seconds; NaN when malformed. */
export function durationSeconds(duration: string): number {
  if (/^\d+$/.test(duration)) return Number(duration);
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== duration) return Number.NaN;
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

/** `--<name>`: a whole number from min to max, or a usage error. */
export function wholeOption(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/** `--<name>`: a duration (durationSeconds) of at least min seconds, or a usage error. */
export function durationOption(name: string, raw: string, min: number): number {
  const value = durationSeconds(raw);
  if (!(value >= min)) throw new UsageError(`--${name} must be a duration of at least ${min} s, e.g. 10s or 2m (got ${JSON.stringify(raw)})`);
  return value;
}

export function parsePlan(args: string[]): BenchPlan {
  let values;
  try {
    ({ values } = parseArgs({ args, options: {
      scale: { type: 'string', default: '0.01' },
      generator: { type: 'string', default: 'k6' },
      cache: { type: 'string', multiple: true },
      workers: { type: 'string', multiple: true },
      rate: { type: 'string', multiple: true },
      connections: { type: 'string', multiple: true },
      duration: { type: 'string', default: '15s' },
      scenario: { type: 'string', multiple: true },
      hot: { type: 'string' },
      warmup: { type: 'string', default: `${WARMUP_SECONDS}s` },
      'database-url': { type: 'string' },
      'api-root': { type: 'string', multiple: true },
      setting: { type: 'string', multiple: true },
      runs: { type: 'string', default: '1' },
      save: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const scale = parseScale(values.scale);
  const generator = values.generator;
  if (generator !== 'k6' && generator !== 'wrk') throw new UsageError('--generator must be k6 or wrk');
  const cacheModes = [...new Set(list(values.cache, 'off'))] as CacheMode[];
  for (const mode of cacheModes) if (!CACHE_MODES.includes(mode)) throw new UsageError(`--cache must be ${CACHE_MODES.join(', ')} (got ${mode})`);
  const workers = positiveIntegers('workers', list(values.workers, '1,2'));
  const loads: Load[] = generator === 'k6'
    ? positiveIntegers('rate', list(values.rate, DEFAULT_RATES)).map((rate) => ({ rate }))
    : positiveIntegers('connections', list(values.connections, DEFAULT_CONNECTIONS)).map((connections) => ({ connections }));
  if (!(durationSeconds(values.duration) > 0)) throw new UsageError(`--duration must be a duration like 15s or 1m (got ${values.duration})`);
  const named = values.scenario === undefined ? undefined : list(values.scenario, '');
  for (const s of named ?? []) if (!SCENARIOS.includes(s)) throw new UsageError(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
  // Writes only by name; with k6, the wrk-only scenarios are left out unless asked for by name (then it is an error).
  const chosen = named ?? SCENARIOS.filter((s) => !BY_NAME_ONLY.has(s) && !WRITE_SCENARIOS.has(s) && !(generator === 'k6' && WRK_ONLY.has(s)));
  for (const s of chosen) if (generator === 'k6' && WRK_ONLY.has(s)) throw new UsageError(`scenario ${s} needs --generator wrk`);
  const scenarios = [...new Set([...chosen.filter((s) => !WRITE_SCENARIOS.has(s)), ...chosen.filter((s) => WRITE_SCENARIOS.has(s))])];
  const hot = values.hot === undefined ? undefined : Number(values.hot);
  if (hot !== undefined && (!Number.isInteger(hot) || hot < 1)) throw new UsageError('--hot must be a positive integer (ids 1..N)');
  const warmupSeconds = durationSeconds(values.warmup);
  if (!(warmupSeconds >= 0)) throw new UsageError(`--warmup must be a duration like 5s or 1m (got ${values.warmup})`);
  const databaseUrl = values['database-url'];
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('--database-url must be a postgres:// URL');
  const apiRoots = (values['api-root'] ?? []).map((root) => path.resolve(root));
  for (const root of apiRoots) if (!fs.existsSync(path.join(root, 'src/main.ts'))) throw new UsageError(`--api-root ${root} has no src/main.ts`);
  const settings = (values.setting ?? []).map((setting) => {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(setting);
    if (!match) throw new UsageError(`--setting must be NAME=VALUE, an environment variable of the API (got ${setting})`);
    return { [match[1]!]: match[2]! };
  });
  const runs = wholeOption('runs', values.runs, 1, 9);
  return { scale, generator, cacheModes, workers, loads, duration: values.duration, scenarios, hot, warmupSeconds, databaseUrl, apiRoots, settings, runs, save: savedName(values.save) };
}

/**
 * The baseline handlers measured at each worker count: the read-model floor,
 * and with REST styles among the scenarios the base-tables floor too
 * (bench/baseline-server.ts).
 */
export function floorsOf(plan: Pick<BenchPlan, 'scenarios'>): BaselineSource[] {
  return plan.scenarios.includes('rest-styles') ? ['documents', 'tables'] : ['documents'];
}

/** Measured runs in the plan: each scenario per cache mode and API, plus the baselines, at every worker count and load. */
export function measuredRuns(plan: BenchPlan): number {
  const apis = 1 + plan.apiRoots.length + plan.settings.length;
  return plan.workers.length * (plan.scenarios.length * plan.cacheModes.length * apis + floorsOf(plan).length) * plan.loads.length * plan.runs;
}

/** A rough duration of the whole plan, for the line printed before it starts. */
export function estimatedSeconds(plan: BenchPlan): number {
  const startup = 3; // a generator's start and end, or a server's start
  const apis = 1 + plan.apiRoots.length + plan.settings.length;
  const warmups = plan.workers.length * (plan.scenarios.length * plan.cacheModes.length * apis + floorsOf(plan).length);
  const servers = plan.workers.length * (plan.cacheModes.length * apis + floorsOf(plan).length);
  return measuredRuns(plan) * (durationSeconds(plan.duration) + startup) + warmups * (plan.warmupSeconds + startup) + servers * startup;
}
