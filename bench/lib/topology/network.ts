// The hosts of the topology bench on one machine: one network namespace per
// host, each with a veth pair whose other end is on a bridge in the root
// namespace (one layer-2 segment, 10.213.0.0/24; the root namespace is on it
// too, as the client). Everything is named after the owning process
// (namespaces `ctp-<pid>-<host>`, links `ctp<pid in base 36>br` and
// `ctp<pid>h<n>`), so a run that was killed is recognised and swept by the
// next one (sweepLeftovers), and a run still alive is not touched.
// Needs root and iproute2 (ip, tc).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchError } from '../bench-error.ts';

const PREFIX = 'ctp';
export const SUBNET = '10.213.0';
/** The root namespace's address on the bridge: where the bench (the client) sends from. */
export const CLIENT_ADDRESS = `${SUBNET}.1`;
/** Temporary directories of a run: <tmp>/catalogue-topo-<pid>-XXXXXX. */
const TEMP_PREFIX = 'catalogue-topo-';

function ip(args: string[]): string {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.error) throw new BenchError(`ip ${args.join(' ')}: ${result.error.message} (the topology needs iproute2)`);
  if (result.status !== 0) throw new BenchError(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The topology can be built here: root, iproute2, and namespaces allowed (a container may refuse them). */
export function topologyUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the topology needs root (network namespaces)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'the topology needs iproute2 (ip)';
  return undefined;
}

export interface Host {
  name: string;
  /** Its network namespace. */
  netns: string;
  address: string;
  /** The root namespace's end of its veth pair (on the bridge). */
  link: string;
}

/** Process ids running in a namespace. */
export function pidsIn(netns: string): number[] {
  const result = spawnSync('ip', ['netns', 'pids', netns], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.split('\n').filter((l) => l !== '').map(Number) : [];
}

/**
 * Ends every process in the namespace: SIGTERM (a fast shutdown for Postgres
 * through its runner, nginx, Redis, Node), SIGKILL to whatever is left after
 * `graceMs`.
 */
export async function killAllIn(netns: string, graceMs = 5_000): Promise<void> {
  for (const pid of pidsIn(netns)) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
  }
  for (const deadline = Date.now() + graceMs; pidsIn(netns).length > 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pidsIn(netns)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  for (let i = 0; i < 50 && pidsIn(netns).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
}

/** What a run left behind: namespaces, links and temporary directories of owners that are no longer running. */
export interface Leftovers { namespaces: string[]; links: string[]; dirs: string[] }

/** Everything of the topology on this machine, by owner pid. */
function inventory(): { namespaces: Map<string, number>; links: Map<string, number>; dirs: Map<string, number> } {
  const namespaces = new Map<string, number>();
  for (const line of ip(['netns', 'list']).split('\n')) {
    const match = new RegExp(`^(${PREFIX}-(\\d+)-\\S+)`).exec(line);
    if (match) namespaces.set(match[1]!, Number(match[2]));
  }
  const links = new Map<string, number>();
  for (const line of ip(['-o', 'link', 'show']).split('\n')) {
    const match = new RegExp(`^\\d+: (${PREFIX}([0-9a-z]+)(?:br|h\\d+))[@:]`).exec(line);
    if (match) links.set(match[1]!, Number.parseInt(match[2]!, 36));
  }
  const dirs = new Map<string, number>();
  for (const entry of fs.readdirSync(os.tmpdir())) {
    const match = new RegExp(`^${TEMP_PREFIX}(\\d+)-`).exec(entry);
    if (match) dirs.set(path.join(os.tmpdir(), entry), Number(match[1]));
  }
  return { namespaces, links, dirs };
}

/**
 * Removes what killed runs left (their processes, namespaces, links and
 * temporary directories) and says what it removed. Fails when another run is
 * still alive: the subnet and the names are one machine's.
 */
export async function sweepLeftovers(): Promise<Leftovers> {
  const found = inventory();
  const owners = new Set([...found.namespaces.values(), ...found.links.values(), ...found.dirs.values()]);
  const live = [...owners].filter((pid) => pid !== process.pid && alive(pid));
  if (live.length > 0) throw new BenchError(`another topology run (pid ${live.join(', ')}) is running; only one at a time on a machine`);
  const swept: Leftovers = { namespaces: [], links: [], dirs: [] };
  for (const [netns, owner] of found.namespaces) {
    if (owner === process.pid) continue;
    await killAllIn(netns, 2_000);
    ip(['netns', 'delete', netns]);
    swept.namespaces.push(netns);
  }
  // Deleting a namespace deletes the veth ends in it, and so their peers: only what is still there.
  const links = inventory().links;
  for (const [link, owner] of links) {
    if (owner === process.pid) continue;
    // Not ip(): the kernel's cleanup of a deleted namespace may take the link first.
    spawnSync('ip', ['link', 'delete', link]);
    swept.links.push(link);
  }
  for (const [dir, owner] of found.dirs) {
    if (owner === process.pid) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    swept.dirs.push(dir);
  }
  return swept;
}

/** Everything this process has of the topology now (for the tests: nothing after tear-down). */
export function ownLeftovers(pid = process.pid): Leftovers {
  const found = inventory();
  const own = (map: Map<string, number>) => [...map].filter(([, owner]) => owner === pid).map(([name]) => name);
  return { namespaces: own(found.namespaces), links: own(found.links), dirs: own(found.dirs) };
}

/** A temporary directory of this run, swept with the rest when the run is killed. */
export function topologyTempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  // Postgres (as the postgres user) and nginx's workers (nobody) reach their own directories inside.
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** The network: a bridge in the root namespace and one namespace per host on it. */
export class Network {
  readonly hosts = new Map<string, Host>();
  private readonly tag = process.pid.toString(36);
  private readonly bridge = `${PREFIX}${this.tag}br`;
  private built = false;

  /** Creates the bridge, with the root namespace on it as the client. */
  create(): void {
    if (ip(['-4', '-o', 'addr', 'show']).includes(` ${SUBNET}.`)) throw new BenchError(`${SUBNET}.0/24 is already in use on this machine`);
    this.built = true;
    ip(['link', 'add', this.bridge, 'type', 'bridge']);
    ip(['addr', 'add', `${CLIENT_ADDRESS}/24`, 'dev', this.bridge]);
    ip(['link', 'set', this.bridge, 'up']);
  }

  /** A host: its namespace (loopback up) and its eth0 on the bridge at SUBNET.<octet>. */
  addHost(name: string, octet: number): Host {
    const netns = `${PREFIX}-${process.pid}-${name}`;
    const link = `${PREFIX}${this.tag}h${octet}`;
    const host: Host = { name, netns, address: `${SUBNET}.${octet}`, link };
    ip(['netns', 'add', netns]);
    this.hosts.set(name, host);
    ip(['link', 'add', link, 'type', 'veth', 'peer', 'name', `${link}p`]);
    ip(['link', 'set', `${link}p`, 'netns', netns]);
    ip(['-n', netns, 'link', 'set', `${link}p`, 'name', 'eth0']);
    ip(['-n', netns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
    ip(['-n', netns, 'link', 'set', 'eth0', 'up']);
    ip(['-n', netns, 'link', 'set', 'lo', 'up']);
    ip(['link', 'set', link, 'master', this.bridge]);
    ip(['link', 'set', link, 'up']);
    return host;
  }

  host(name: string): Host {
    const host = this.hosts.get(name);
    if (!host) throw new BenchError(`no host ${name} in the topology`);
    return host;
  }

  /**
   * Cuts `from` off from `to`: its packets to that address are dropped (a
   * blackhole route), silently, as a partition does; open connections hang
   * until their own timeouts. Restored by reconnect().
   */
  disconnect(from: Host, to: Host): void {
    ip(['-n', from.netns, 'route', 'add', 'blackhole', `${to.address}/32`]);
  }

  reconnect(from: Host, to: Host): void {
    ip(['-n', from.netns, 'route', 'delete', 'blackhole', `${to.address}/32`]);
  }

  /**
   * Delays every packet `host` sends by `ms` with tc netem, if the kernel has
   * it (false when it has not: CONFIG_NET_SCH_NETEM is off in some kernels);
   * `ms` 0 removes the delay.
   */
  netemDelay(host: Host, ms: number): boolean {
    const args = ms > 0 ? ['qdisc', 'replace', 'dev', 'eth0', 'root', 'netem', 'delay', `${ms}ms`] : ['qdisc', 'delete', 'dev', 'eth0', 'root'];
    return spawnSync('ip', ['netns', 'exec', host.netns, 'tc', ...args], { encoding: 'utf8' }).status === 0;
  }

  /**
   * Ends the processes of every host, deletes their veth pairs, the
   * namespaces and the bridge. Each pair is deleted by its root end first:
   * a namespace's devices go with it only when the kernel gets to its
   * cleanup, after `ip netns delete` has returned (a CI run found a root end
   * still there just after a SIGTERM's tear-down).
   */
  async destroy(): Promise<void> {
    for (const host of this.hosts.values()) await killAllIn(host.netns);
    for (const host of this.hosts.values()) {
      spawnSync('ip', ['link', 'delete', host.link]);
      spawnSync('ip', ['netns', 'delete', host.netns]);
    }
    this.hosts.clear();
    if (this.built) spawnSync('ip', ['link', 'delete', this.bridge]);
    this.built = false;
  }
}

/** Runs a command in a host's namespace and returns its output. */
export function inHost(host: Host, command: string, args: string[]): string {
  return execFileSync('ip', ['netns', 'exec', host.netns, command, ...args], { encoding: 'utf8' });
}

/**
 * Runs `cleanup` when the process is told to stop (SIGINT, SIGTERM, SIGHUP),
 * then exits 128 + the signal's number; a second signal while it runs exits at
 * once. Returns the function that removes the handlers (after a normal end).
 */
export function onInterrupt(cleanup: () => Promise<void>, log: (message: string) => void = console.error): () => void {
  const signals = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
  let cleaning = false;
  const handler = (signal: keyof typeof signals) => {
    if (cleaning) process.exit(128 + signals[signal]);
    cleaning = true;
    log(`${signal}: tearing the topology down`);
    cleanup().catch((error: unknown) => log(`tear-down failed: ${(error as Error).message}`)).finally(() => process.exit(128 + signals[signal]));
  };
  for (const signal of Object.keys(signals) as (keyof typeof signals)[]) process.on(signal, handler);
  return () => {
    for (const signal of Object.keys(signals) as (keyof typeof signals)[]) process.off(signal, handler);
  };
}
