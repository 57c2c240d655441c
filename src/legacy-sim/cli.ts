// npm run legacy:sim -- [--port 4100] [--products 1000] [--overhead-ms 500] ...
// Starts the legacy simulator (docs/legacy-simulator.md) until Ctrl-C / SIGTERM.
import { parseArgs } from 'node:util';
import { UsageError, runCommand } from '../commands/run.ts';
import { type FaultSettings, LEGACY_ROUTES, type LegacySimulatorOptions, startLegacySimulator } from './server.ts';

const USAGE = `usage: npm run legacy:sim -- [options]
  --port <n>               port to listen on (default 4100; 0 = any free port)
  --host <address>         address to listen on (default 127.0.0.1)
  --products <n>           products in the seeded catalogue (default 1000)
  --seed <n>               catalogue seed (default 1)
  --overhead-ms <n>        fixed wait before each answer, one request at a time (default 500)
  --per-item-ms <n>        wait per item an answer returns, after the overhead (default 0)
  --error-rate <0..1>      share of requests answered with a random 500/502/503/504 (default 0)
  --throttle-rate <0..1>   share of requests answered 429 with Retry-After (default 0)
  --slow-rate <0..1>       share of requests that wait --slow-ms more (default 0)
  --slow-ms <n>            extra wait of a slow request (default 3000)
  --retry-after-s <n>      Retry-After of the 429s and 503s (default 1)
  --fault-seed <n>         seed of the fault draws (default: --seed)
  --campus <text>          campus of every product (default hr-rfp)
  --empty-placeholders on|off  null placeholders for styles without photos/skus (default on)
  --max-page-size <n>      largest count of GET /products (default 100)
  --request-log-size <n>   legacy requests GET /__sim/requests keeps (default 1000)`;

function integer(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

function milliseconds(name: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > max) throw new UsageError(`--${name} must be a number of milliseconds from 0 to ${max}, e.g. 2 or 0.2 (got ${JSON.stringify(raw)})`);
  return value;
}

function rate(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new UsageError(`--${name} must be a number from 0 to 1, e.g. 0.05 (got ${JSON.stringify(raw)})`);
  return value;
}

/** The simulator's options from the command line; UsageError for anything unknown or out of range. */
export function parseSimulatorArgs(args: string[]): LegacySimulatorOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' }, host: { type: 'string' }, products: { type: 'string' }, seed: { type: 'string' },
        'overhead-ms': { type: 'string' }, 'error-rate': { type: 'string' }, 'throttle-rate': { type: 'string' },
        'slow-rate': { type: 'string' }, 'slow-ms': { type: 'string' }, 'retry-after-s': { type: 'string' },
        'fault-seed': { type: 'string' }, campus: { type: 'string' }, 'empty-placeholders': { type: 'string' },
        'max-page-size': { type: 'string' }, 'per-item-ms': { type: 'string' }, 'request-log-size': { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new UsageError(USAGE);
  const placeholders = values['empty-placeholders'];
  if (placeholders !== undefined && placeholders !== 'on' && placeholders !== 'off') throw new UsageError(`--empty-placeholders must be on or off (got ${JSON.stringify(placeholders)})`);
  if (values.host !== undefined && values.host.trim() === '') throw new UsageError('--host must not be empty');
  if (values.campus !== undefined && values.campus === '') throw new UsageError('--campus must not be empty');
  const options: LegacySimulatorOptions = {
    port: integer('port', values.port, 0, 65_535) ?? 4100,
    host: values.host ?? '127.0.0.1',
    products: integer('products', values.products, 0, 2_000_000),
    seed: integer('seed', values.seed, 0, 2 ** 32 - 1),
    overheadMs: integer('overhead-ms', values['overhead-ms'], 0, 600_000),
    perItemMs: milliseconds('per-item-ms', values['per-item-ms'], 60_000),
    errorRate: rate('error-rate', values['error-rate']),
    throttleRate: rate('throttle-rate', values['throttle-rate']),
    slowRate: rate('slow-rate', values['slow-rate']),
    slowMs: integer('slow-ms', values['slow-ms'], 0, 600_000),
    retryAfterSeconds: integer('retry-after-s', values['retry-after-s'], 0, 86_400),
    faultSeed: integer('fault-seed', values['fault-seed'], 0, 2 ** 32 - 1),
    campus: values.campus,
    emptyPlaceholders: placeholders === undefined ? undefined : placeholders === 'on',
    maxPageSize: integer('max-page-size', values['max-page-size'], 1, 10_000),
    requestLogSize: integer('request-log-size', values['request-log-size'], 1, 10_000_000),
  };
  if ((options.errorRate ?? 0) + (options.throttleRate ?? 0) > 1) throw new UsageError('--error-rate + --throttle-rate must be at most 1');
  for (const key of Object.keys(options) as (keyof LegacySimulatorOptions)[]) if (options[key] === undefined) delete options[key];
  return options;
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(2))}%`;

/** What the simulator serves, one line each (documented in docs/legacy-simulator.md). */
export function describeSimulator(sim: { url: string; faults(): FaultSettings }, info: { products: number; seed: number; buildMs: number }): string[] {
  const f = sim.faults();
  return [
    `legacy simulator listening on ${sim.url} (${info.products.toLocaleString('en-US')} products, seed ${info.seed}, built in ${info.buildMs} ms)`,
    `legacy routes: ${LEGACY_ROUTES.join(', ')}`,
    `behaviour: one request at a time, ${f.overheadMs} ms overhead each${f.perItemMs > 0 ? ` + ${f.perItemMs} ms per item returned` : ''}; faults: 5xx ${percent(f.errorRate)}, 429 ${percent(f.throttleRate)} (Retry-After ${f.retryAfterSeconds} s), slow ${percent(f.slowRate)} (+${f.slowMs} ms)`,
    `admin (not queued, not delayed, not counted): GET ${sim.url}/__sim/stats, GET /__sim/requests, GET /__sim/config, POST /__sim/reset-stats, POST /__sim/faults, POST /__sim/down, POST /__sim/up, POST /__sim/reset-catalogue, GET|POST|DELETE /__sim/products/:id, POST /__sim/products`,
  ];
}

// Run only as a program, not when a test imports parseSimulatorArgs.
if (import.meta.main) {
  runCommand(async () => {
    const options = parseSimulatorArgs(process.argv.slice(2));
    const started = Date.now();
    let sim;
    try {
      sim = await startLegacySimulator(options);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${code}`);
      throw error;
    }
    for (const line of describeSimulator(sim, { products: sim.catalogue.count, seed: sim.catalogue.seed, buildMs: Date.now() - started })) console.log(line);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await sim.close();
    const received = sim.stats().received;
    console.log(`legacy simulator stopped after ${received.toLocaleString('en-US')} legacy request${received === 1 ? '' : 's'}`);
  });
}
