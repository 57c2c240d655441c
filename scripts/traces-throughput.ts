// What traces cost in throughput (issue 49, item 4): one production API
// process (cache off) on the catalogue at --database-url, wrk with 10
// connections on the product page by POST, then on REST styles, for each
// traces mode in turn within every round:
//
//   npm run bench:traces -- --database-url postgres://…/etl_bench [--modes off,0,5,100] [--rounds 3] [--seconds 15] [--warm 30] [--port 4100] [--save traces]
//
// Modes: off (no OTEL_* variable), 0 (always_off: every span left out), N (a
// ratio of N%, the parent-based default sampler), 100 (always_on). Spans go
// to the quiet OTLP/HTTP receiver test/support/otlp-receiver builds (run
// test/observability/otlp-export.test.ts once), so the export's work is in
// the figures. Before the rounds, a process of its own reads for --warm
// seconds per route (Postgres's buffers, the host's page cache). Each mode is a fresh process, warmed past its first export
// (5 s after its first sampled span, which loads the exporter once). Prints,
// per round, mode and route, requests/s and the API process's CPU per
// request (from /proc: the figure the host's other work disturbs least), then
// per mode the medians and the median of the rounds' ratios to off (each
// round's modes run back to back, each round starting one mode later).
// `--save <name>` keeps the run in docs/performance/<name>.json; the traces
// table of docs/operations.md is rendered from `traces`. Needs wrk and curl.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { median } from '../bench/lib/median.ts';
import { endProvenance, publish, savedName, startProvenance } from '../bench/lib/provenance.ts';
import { UsageError } from '../src/commands/run.ts';
import { queryOnce } from '../src/db/pool/query-once.ts';

const ROOT = path.join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const { values } = parseArgs({ args, options: {
  'database-url': { type: 'string' },
  modes: { type: 'string', default: 'off,0,5,100' },
  rounds: { type: 'string', default: '3' },
  seconds: { type: 'string', default: '15' },
  warm: { type: 'string', default: '30' },
  port: { type: 'string', default: '4100' },
  save: { type: 'string' },
} });
if (!values['database-url']) throw new UsageError('--database-url is required');
const databaseUrl = values['database-url'];
const modes = values.modes.split(',');
const rounds = Math.min(9, Number(values.rounds));
const seconds = Math.min(60, Number(values.seconds));
const warm = Math.min(120, Number(values.warm));
const port = Number(values.port);
const save = savedName(values.save);
for (const mode of modes) if (mode !== 'off' && !/^\d+(\.\d+)?$/.test(mode)) throw new UsageError(`--modes: off or a percentage (got ${mode})`);

const RECEIVER = path.join(os.homedir(), '.cache/catalogue-api/bin/otlp-receiver');
const RECEIVER_PORT = 4395;
const QUERY = 'query ProductPageWithRelatedIds($id: ID!) { product(id: $id) { id name slogan description category defaultPrice features { feature value } styles { id name originalPrice salePrice isDefault photos { thumbnailUrl url } skus { id size quantity } } relatedIds } }';
const ROUTES = [
  { route: 'product page', script: 'graphql-post.lua' },
  { route: 'REST styles', script: 'rest-styles.lua' },
] as const;

/** The OTEL_* variables of a mode. */
function tracesEnv(mode: string): Record<string, string> {
  if (mode === 'off') return {};
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${RECEIVER_PORT}` };
  if (mode === '0') return { ...endpoint, OTEL_TRACES_SAMPLER: 'always_off' };
  if (mode === '100') return { ...endpoint, OTEL_TRACES_SAMPLER: 'always_on' };
  return { ...endpoint, OTEL_TRACES_SAMPLER_ARG: String(Number(mode) / 100) };
}

const cpuTicks = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, fields 14 and 15 of stat
};
const TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

function wrk(script: string, duration: number, env: Record<string, string>): { rps: number; requests: number } {
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${duration}s`, '-s', path.join(ROOT, 'bench/wrk', script), `http://127.0.0.1:${port}`],
    { encoding: 'utf8', env: { ...process.env, ...env } });
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]), requests: Number(/(\d+) requests in/.exec(out)![1]) };
}

async function startApi(mode: string): Promise<ChildProcess> {
  const api = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT, stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production', CACHE: 'off', PORT: String(port), DATABASE_URL: databaseUrl, ...tracesEnv(mode) },
  });
  for (let i = 0; i < 120; i++) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return api;
    await sleep(500);
  }
  api.kill('SIGKILL');
  throw new Error(`the API (traces ${mode}) was not ready in 60 s`);
}

async function stop(api: ChildProcess): Promise<void> {
  api.kill('SIGTERM');
  await new Promise((resolve) => api.once('exit', resolve));
}

interface Measured { round: number; mode: string; route: string; rps: number; cpuUs: number; load: number }

/** Per mode and route: median requests/s and CPU a request, and the median of the rounds' ratios to off. */
function summarise(measured: Measured[]): { mode: string; route: string; rps: number; cpuUs: number; ratioToOff?: number }[] {
  const of = (mode: string, route: string) => measured.filter((m) => m.mode === mode && m.route === route);
  return [...new Set(measured.map((m) => m.mode))].flatMap((mode) => ROUTES.map(({ route }) => {
    const rows = of(mode, route);
    const ratios = rows.flatMap((row) => {
      const off = measured.find((m) => m.mode === 'off' && m.route === route && m.round === row.round);
      return off && mode !== 'off' ? [row.rps / off.rps] : [];
    });
    return { mode, route, rps: median(rows.map((r) => r.rps)), cpuUs: median(rows.map((r) => r.cpuUs)), ...(ratios.length ? { ratioToOff: median(ratios) } : {}) };
  }));
}

async function main(): Promise<void> {
  if (!fs.existsSync(RECEIVER)) throw new Error(`no ${RECEIVER}: run test/observability/otlp-export.test.ts once to build it`);
  const idMax = (await queryOnce<{ max: number }>(databaseUrl, 'SELECT max(id)::int AS max FROM products'))[0]!.max;
  const wrkEnv = { QUERY_JSON: JSON.stringify(QUERY), OPERATION_NAME: 'ProductPageWithRelatedIds', ID_MAX: String(idMax) };
  const provenance = startProvenance('bench:traces', args, { modes, rounds, seconds, idMax, route: ROUTES.map((r) => r.route) });
  const receiver = spawn(RECEIVER, ['--port', String(RECEIVER_PORT), '--quiet'], { stdio: 'ignore' });
  const measured: Measured[] = [];
  try {
    // Postgres's and the host's caches warmed first, by a process of its own, or the first round's first mode reads from disk.
    const warming = await startApi('off');
    try {
      for (const { script } of ROUTES) wrk(script, warm, wrkEnv);
    } finally {
      await stop(warming);
    }
    for (let round = 1; round <= rounds; round++) {
      // Each round starts one mode later (off, 0, 5, 100; then 0, 5, 100, off; …): a host
      // that slows down within a round weighs on every mode alike over the rounds.
      for (const mode of [...modes.slice((round - 1) % modes.length), ...modes.slice(0, (round - 1) % modes.length)]) {
        const api = await startApi(mode);
        try {
          for (const { script } of ROUTES) wrk(script, 6, wrkEnv);
          for (const { route, script } of ROUTES) {
            const before = cpuTicks(api.pid!);
            const { rps, requests } = wrk(script, seconds, wrkEnv);
            const cpuUs = ((cpuTicks(api.pid!) - before) * TICK_US) / requests;
            const row = { round, mode, route, rps, cpuUs, load: os.loadavg()[0]! };
            measured.push(row);
            console.log(`round ${round}  traces ${mode.padEnd(3)}  ${route.padEnd(12)}  ${Math.round(rps)}/s  ${Math.round(cpuUs)} µs CPU a request  load ${row.load.toFixed(2)}`);
          }
        } finally {
          await stop(api);
        }
      }
    }
  } finally {
    receiver.kill('SIGTERM');
  }
  const medians = summarise(measured);
  for (const m of medians) console.log(`traces ${m.mode.padEnd(3)}  ${m.route.padEnd(12)}  median ${Math.round(m.rps)}/s, ${Math.round(m.cpuUs)} µs a request${m.ratioToOff === undefined ? '' : `, ${m.ratioToOff.toFixed(2)}x off`}`);
  if (save) console.log(`saved to ${publish(save, { provenance: endProvenance(provenance), medians, rounds: measured })}`);
}

if (import.meta.main) await main();
