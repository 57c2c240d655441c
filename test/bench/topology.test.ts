// The short version of npm run bench:topology (bench/lib/topology/): nginx,
// three API hosts, a Postgres primary and its streaming replica, and Redis,
// each in a network namespace of its own, built from a 1,000-product
// catalogue. Under a light page load and the read-your-writes check through
// nginx, each phase runs 4 s: an API host killed, restarted, another cut off
// from Redis, reconnected, the replica delayed by 50 ms, restored. No request
// may fail and no read after an acknowledged write may be stale; the faults
// must have taken effect (the killed host answers nothing, the replica lags);
// tear-down leaves no namespace, link, process or directory, also when the
// run is interrupted (SIGTERM) or killed (swept by the next run). Needs root
// and iproute2 (CI runs as root; .ci/run installs iproute2), nginx and Redis:
// never skipped in CI.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownLeftovers, pidsIn, sweepLeftovers, topologyUnavailable } from '../../bench/lib/topology/network.ts';
import { pageLoad, type PageLoadResult } from '../../bench/lib/topology/page-load.ts';
import { type PhaseStats, type PhaseWindow, PHASES, REPLICA_DELAY_MS, phaseStats, runPhases } from '../../bench/lib/topology/phases.ts';
import { type ReadYourWritesResult, checkReadYourWrites } from '../../bench/lib/topology/read-your-writes.ts';
import { Topology } from '../../bench/lib/topology/topology.ts';
import type { AccessLogEntry } from '../../bench/lib/nginx.ts';
import { nginxAvailable } from '../support/nginx.ts';
import { redisAvailable } from '../support/redis.ts';

const PHASE_SECONDS = 4;

function available(): boolean {
  const missing = topologyUnavailable();
  if (missing && process.env.CI) throw new Error(`${missing}: the topology test never skips in CI`);
  return missing === undefined && nginxAvailable() && redisAvailable();
}

/** Running: it exists and is not a zombie (exited, waiting for its parent to collect it). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const nothing = { namespaces: [], links: [], dirs: [] };

describe.skipIf(!available())('the multi-host topology under faults', () => {
  let topology: Topology;
  let windows: PhaseWindow[];
  let stats: PhaseStats[];
  let log: AccessLogEntry[];
  let pages: PageLoadResult;
  let checked: ReadYourWritesResult;
  let pidsBeforeTeardown: number[];
  let api3: string;

  beforeAll(async () => {
    topology = new Topology(() => {});
    await topology.start({ scale: 0.001, log: () => {} });
    const { url, apiKey, catalogue } = topology;
    let running = true;
    const load = pageLoad({ url, maxId: catalogue.maxId, loops: 3, running: () => running });
    const writes = checkReadYourWrites({ url, apiKey, maxId: catalogue.maxId, loops: 2, writesPerSecond: 10, running: () => running });
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      windows = await runPhases(topology, PHASE_SECONDS, () => {});
    } finally {
      running = false;
      [pages, checked] = await Promise.all([load, writes]);
    }
    log = topology.nginx.accessLog();
    const addresses = new Map([...topology.network.hosts.values()].map((host) => [host.address, host.name]));
    stats = phaseStats(windows, log, (upstream) => addresses.get(upstream.split(':')[0]!) ?? upstream);
    api3 = topology.host('api3').address;
    pidsBeforeTeardown = [...topology.network.hosts.values()].flatMap((host) => pidsIn(host.netns));
    await topology.teardown();
  }, 240_000);

  afterAll(() => topology?.teardown());

  it('answers every request through every phase, and no read after an acknowledged write is stale', () => {
    expect(stats.map((s) => s.name)).toEqual(PHASES.map((p) => p.name));
    for (const phase of stats) expect(phase.requests, phase.name).toBeGreaterThan(0);
    expect(stats.map((s) => s.failed)).toEqual(stats.map(() => 0));
    expect(pages.failed).toEqual([]);
    expect(pages.requests).toBeGreaterThan(100);
    expect(checked.failed).toEqual([]);
    expect(checked.writes).toBeGreaterThan(20);
    expect(checked.reads).toBe(2 * checked.writes);
    expect(checked.stale).toEqual([]);
  });

  it('the faults took effect: the killed host answers nothing, nginx retried elsewhere, the delayed replica lags', () => {
    const killed = windows.find((w) => w.name === 'api3 killed')!;
    const afterKill = log.filter((e) => e.time > killed.start + killed.actionMs / 1000 + 0.5 && e.time < killed.end);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(afterKill.filter((e) => e.upstreams.at(-1)?.startsWith(`${api3}:`))).toEqual([]);
    const delayed = stats.find((s) => s.name === `replica +${REPLICA_DELAY_MS} ms`)!;
    expect(delayed.maxReplayLagMs).toBeGreaterThanOrEqual(REPLICA_DELAY_MS);
    // The steady phase read from the replica: the set-up routes reads there.
    expect(stats[0]!.reads.replica).toBeGreaterThan(0);
  });

  it('tears down everything: namespaces, links, processes, temporary directories', () => {
    expect(pidsBeforeTeardown.length).toBeGreaterThan(5);
    expect(pidsBeforeTeardown.filter(alive)).toEqual([]);
    expect(ownLeftovers()).toEqual(nothing);
  });

  it('tears down on SIGTERM, and the next run sweeps what a SIGKILL left', async () => {
    const start = async () => {
      const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../support/topology-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('"ready"')) resolve(); });
        child.once('exit', (code) => reject(new Error(`the topology child exited with ${code}`)));
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      return { pid: child.pid!, exited };
    };
    const interrupted = await start();
    expect(ownLeftovers(interrupted.pid).namespaces).toHaveLength(2);
    process.kill(interrupted.pid, 'SIGTERM');
    await interrupted.exited;
    expect(ownLeftovers(interrupted.pid)).toEqual(nothing);

    const killed = await start();
    const left = ownLeftovers(killed.pid);
    const sleepers = left.namespaces.flatMap(pidsIn);
    expect(sleepers).toHaveLength(1);
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;
    expect(ownLeftovers(killed.pid)).toEqual(left);
    const swept = await sweepLeftovers();
    expect(swept.namespaces.sort()).toEqual(left.namespaces.sort());
    expect(ownLeftovers(killed.pid)).toEqual(nothing);
    expect(sleepers.filter(alive)).toEqual([]);
  }, 30_000);
});
