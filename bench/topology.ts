// npm run bench:topology -- [--scale <f>] [--rate <iterations/s>] [--phase <seconds>] [--writes <writes/s>] [--save <name>]
//
// The multi-host topology of issue 19 on one machine (bench/lib/topology/):
// nginx, three API hosts, a Postgres primary and a streaming replica, and
// Redis, each in a network namespace of its own on one bridge. Runs the k6
// mixed-writes scenario through nginx for the whole timeline, and beside it
// the read-your-writes check (writes through nginx, --writes a second, each
// read back at once, twice). Phase by phase, under that load: steady; one API host killed
// (SIGKILL); restarted; another cut off from Redis (packets dropped both
// ways); reconnected; 50 ms added to everything the replica sends; removed.
// Prints each phase's throughput, failures, hosts, cache hits, replica reads
// and lag, and passes when no request failed and no read was stale. Tears
// everything down at the end, on SIGINT/SIGTERM too, and sweeps what an
// interrupted run left before it starts. Needs root, iproute2, nginx,
// redis-server and k6. Files in .data/bench/results/<time>-topology/; with
// --save <name>, a passing run's figures in docs/performance/<name>.json
// (docs/scaling.md's topology table is rendered from `topology`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { BenchError } from './lib/bench-error.ts';
import { SCENARIO_DIR, ensureK6, k6Measurement, readK6Metrics } from './lib/k6.ts';
import { parseScale } from './lib/plan.ts';
import { onInterrupt, ownLeftovers, topologyUnavailable } from './lib/topology/network.ts';
import { PHASES, phaseStats, phaseTable, runPhases } from './lib/topology/phases.ts';
import { checkReadYourWrites } from './lib/topology/read-your-writes.ts';
import { Topology } from './lib/topology/topology.ts';
import { endProvenance, publish, savedName, startProvenance } from './lib/provenance.ts';

const SCENARIO = 'mixed-writes';
/** Load before the first phase: caches and connection pools fill. */
const WARMUP_SECONDS = 5;
/** Concurrent write-then-read loops of the read-your-writes check. */
const WRITE_LOOPS = 4;

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      scale: { type: 'string', default: '0.01' },
      rate: { type: 'string', default: '100' },
      phase: { type: 'string', default: '15' },
      writes: { type: 'string', default: '20' },
      save: { type: 'string' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const scale = parseScale(values.scale);
  const rate = Number(values.rate);
  const phaseSeconds = Number(values.phase);
  const writesPerSecond = Number(values.writes);
  const save = savedName(values.save);
  if (!(rate >= 1)) throw new UsageError('--rate must be at least 1 (k6 iterations per second)');
  if (!(phaseSeconds >= 5)) throw new UsageError('--phase must be at least 5 (seconds per phase)');
  if (!(writesPerSecond > 0)) throw new UsageError('--writes must be a positive number of read-your-writes writes per second');
  const unavailable = topologyUnavailable();
  if (unavailable) throw new UsageError(unavailable);
  const config = loadConfig();
  const k6 = ensureK6();
  const resultsDir = path.join(config.dataDir, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-topology`);
  fs.mkdirSync(resultsDir, { recursive: true });

  const provenance = startProvenance('bench:topology', process.argv.slice(2), { scale, rate, phaseSeconds, writesPerSecond });
  const topology = new Topology(console.log);
  let k6Child: ReturnType<typeof spawn> | undefined;
  const removeHandlers = onInterrupt(async () => {
    k6Child?.kill('SIGTERM');
    await topology.teardown();
  });
  try {
    await topology.start({ scale, dataDir: config.dataDir, log: console.log });
    const { catalogue } = topology;
    const duration = WARMUP_SECONDS + PHASES.length * phaseSeconds + 2;
    console.log(`k6 ${SCENARIO} through nginx at ${rate} iterations/s for ${duration} s; read-your-writes check at ${writesPerSecond} writes/s; ${PHASES.length} phases of ${phaseSeconds} s after ${WARMUP_SECONDS} s of warm-up`);
    const summaryFile = path.join(resultsDir, `${SCENARIO}.json`);
    const child = spawn(k6, ['run', '--quiet', '--no-color', '--no-thresholds', `--summary-export=${summaryFile}`, '--summary-trend-stats=avg,med,p(95),p(99),max',
      path.join(SCENARIO_DIR, `${SCENARIO}.ts`)], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, BASE_URL: topology.url, PROFILE: 'load', RATE: String(rate), DURATION: `${duration}s`,
        ID_MIN: '1', ID_MAX: String(catalogue.maxId), PRODUCT_COUNT: String(catalogue.products), API_KEY: topology.apiKey },
    });
    k6Child = child;
    const k6Exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let writing = true;
    const readYourWrites = checkReadYourWrites({ url: topology.url, apiKey: topology.apiKey, maxId: catalogue.maxId, loops: WRITE_LOOPS, writesPerSecond, running: () => writing });
    await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
    const windows = await runPhases(topology, phaseSeconds, console.log);
    writing = false;
    const checked = await readYourWrites;
    await k6Exited;

    const addresses = new Map([...topology.network.hosts.values()].map((host) => [host.address, host.name]));
    const stats = phaseStats(windows, topology.nginx.accessLog(), (upstream) => addresses.get(upstream.split(':')[0]!) ?? upstream);
    const metrics = readK6Metrics(summaryFile);
    const measured = k6Measurement(metrics);
    const checks = metrics.checks ?? {};
    const k6Failed = Math.round(measured.errors * measured.requests);
    console.log(`\n${phaseTable(stats)}\n`);
    console.log(`k6: ${measured.requests} requests (${measured.rps.toFixed(0)}/s), ${k6Failed} failed, ${measured.dropped} dropped, checks ${checks.passes ?? 0}/${(checks.passes ?? 0) + (checks.fails ?? 0)}, `
      + `p50 ${measured.p50.toFixed(2)} ms, p95 ${measured.p95.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms`);
    console.log(`read-your-writes: ${checked.writes} writes acknowledged, ${checked.reads} reads after them, ${checked.stale.length} stale, ${checked.failed.length} failed`);
    for (const line of [...checked.stale, ...checked.failed].slice(0, 5)) console.log(`  ${line}`);
    fs.writeFileSync(path.join(resultsDir, 'result.json'), `${JSON.stringify({ scale, rate, phaseSeconds, writesPerSecond, stats, k6: { measured, checks }, readYourWrites: checked }, null, 2)}\n`);
    fs.copyFileSync(path.join(topology.nginx.dir, 'access.log'), path.join(resultsDir, 'access.log'));

    const failedAtNginx = stats.reduce((sum, s) => sum + s.failed, 0);
    const problems = [
      ...(k6Failed > 0 || failedAtNginx > 0 ? [`${Math.max(k6Failed, failedAtNginx)} requests failed`] : []),
      ...((checks.fails ?? 0) > 0 ? [`${checks.fails} k6 checks failed`] : []),
      ...(checked.failed.length > 0 ? [`${checked.failed.length} read-your-writes requests failed`] : []),
      ...(checked.stale.length > 0 ? [`${checked.stale.length} stale reads after acknowledged writes`] : []),
      ...(checked.writes === 0 ? ['no write was acknowledged'] : []),
    ];
    await topology.teardown();
    const left = ownLeftovers();
    const leftCount = left.namespaces.length + left.links.length + left.dirs.length;
    console.log(leftCount === 0 ? 'tear-down: no namespace, link, process or temporary directory left' : `tear-down left ${JSON.stringify(left)}`);
    if (leftCount > 0) problems.push('tear-down left something behind');
    console.log(`files in ${resultsDir}`);
    if (problems.length > 0) throw new BenchError(`topology run failed: ${problems.join('; ')}`);
    console.log('topology run passed: zero failed requests, no stale read after an acknowledged write');
    // Only a passing run is published: the docs say what it showed.
    if (save) {
      const readBack = { writes: checked.writes, reads: checked.reads, stale: checked.stale.length, failed: checked.failed.length };
      console.log(`saved to ${publish(save, { provenance: { ...endProvenance(provenance), data: { products: catalogue.products, scale } }, stats, k6: { measured, checks }, readYourWrites: readBack })}`);
    }
  } finally {
    await topology.teardown();
    removeHandlers();
  }
});
