// The multi-host topology of npm run bench:topology on one machine (see
// ./network.ts): nginx on one host, three API hosts, a Postgres primary and
// a streaming replica on two more, Redis on another, each host a network
// namespace on one bridge. Built, faulted and torn down from here.
//
//   lb 10.213.0.10:8080 (nginx, deploy/nginx/nginx.conf)
//   api1..api3 10.213.0.11-13:4000 (node src/main.ts, Redis cache, replica reads)
//   pg-primary 10.213.0.21:5432     pg-replica 10.213.0.22:5432 (streaming)
//   redis 10.213.0.30:6379
//
// The catalogue is loaded into the primary before it moves to its host (an
// embedded Postgres on this host's loopback, then stopped and started again
// in the primary's namespace), and the replica is a base backup of it. The
// replica's host reaches the network through a relay (./delay-relay.ts)
// that can delay what the host sends when the kernel has no tc netem.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../../src/db/server/embedded.ts';
import { createBenchApiKey } from '../api-key.ts';
import { baseBackup } from '../base-backup.ts';
import { BenchError } from '../bench-error.ts';
import { type BenchCatalogue, ensureBenchCatalogue } from '../catalogue.ts';
import { freePort } from '../free-port.ts';
import { waitListening } from '../listening.ts';
import { type RunningNginx, startNginx } from '../nginx.ts';
import { type ScriptServer, startScriptServer } from '../script-server.ts';
import { type Placement, type ServerProcess, commandIn, startApi } from '../server-process.ts';
import { type Host, Network, SUBNET, killAllIn, pidsIn, sweepLeftovers, topologyTempDir } from './network.ts';

const POSTGRES_SERVER = path.resolve(import.meta.dirname, '../postgres-server.ts');
const DELAY_RELAY = path.resolve(import.meta.dirname, 'delay-relay.ts');
const PG_PORT = 5432;
/** On the replica's host, behind the relay: the standby itself, and the relay's way to the primary. */
const STANDBY_PORT = 5433;
const RELAY_TO_PRIMARY_PORT = 5434;
const API_PORT = 4000;
const NGINX_PORT = 8080;
const REDIS_PORT = 6379;
const CREDENTIALS = 'postgres:postgres';

export const API_HOSTS = ['api1', 'api2', 'api3'] as const;
export type ApiHost = (typeof API_HOSTS)[number];
const OCTETS = { lb: 10, api1: 11, api2: 12, api3: 13, 'pg-primary': 21, 'pg-replica': 22, redis: 30 } as const;

export interface TopologyOptions {
  scale: number;
  /** Where generated catalogues are kept (reused between runs of the same scale); by default, in the run's temporary directory. */
  dataDir?: string;
  log: (message: string) => void;
}

export class Topology {
  readonly network = new Network();
  readonly dir = topologyTempDir();
  readonly apis = new Map<ApiHost, ServerProcess>();
  catalogue!: BenchCatalogue;
  /** The API key the writes send. */
  apiKey!: string;
  nginx!: RunningNginx;
  private primary?: ScriptServer<{ ready: true }>;
  private standby?: ScriptServer<{ ready: true }>;
  private relay?: ScriptServer<{ ready: true }>;
  private redis?: ChildProcess;
  /** tc netem works here; otherwise the relay delays. */
  private netem = false;
  private readonly log: (message: string) => void;

  /** Nothing is built yet (but the temporary directory): install an interrupt handler with teardown(), then start(). */
  constructor(log: (message: string) => void) {
    this.log = log;
  }

  /** nginx's URL: where the clients send. */
  get url(): string {
    return this.nginx.url;
  }

  host(name: keyof typeof OCTETS): Host {
    return this.network.host(name);
  }

  private databaseUrl(host: Host, database = this.databaseName): string {
    return `postgresql://${CREDENTIALS}@${host.address}:${PG_PORT}/${database}`;
  }

  private databaseName = 'catalogue_bench';

  /** The primary's URL from this (the root) namespace. */
  get primaryUrl(): string {
    return this.databaseUrl(this.host('pg-primary'));
  }

  /** Sweeps what interrupted runs left, then builds every host; tears down what it built when a step fails. */
  async start(options: TopologyOptions): Promise<void> {
    try {
      await this.build(options);
    } catch (error) {
      await this.teardown();
      throw error;
    }
  }

  private async build(options: TopologyOptions): Promise<void> {
    const { log } = options;
    const swept = await sweepLeftovers();
    const sweptCount = swept.namespaces.length + swept.links.length + swept.dirs.length;
    if (sweptCount > 0) log(`swept what an interrupted run left: ${[...swept.namespaces, ...swept.links, ...swept.dirs].join(', ')}`);
    this.network.create();
    for (const [name, octet] of Object.entries(OCTETS)) this.network.addHost(name, octet);
    log(`network: bridge with ${this.network.hosts.size} hosts on ${SUBNET}.0/24, this namespace at ${SUBNET}.1`);

    // The catalogue, loaded into the primary while it runs here on loopback.
    const primaryDir = path.join(this.dir, 'primary');
    const local = await startEmbeddedPostgres({ dir: primaryDir, port: await freePort(), persistent: true });
    try {
      this.catalogue = await ensureBenchCatalogue(local.url, options.scale, options.dataDir ?? this.dir);
      this.databaseName = new URL(this.catalogue.url).pathname.slice(1);
      this.apiKey = (await createBenchApiKey(this.catalogue.url, 'topology')).secret;
    } finally {
      await local.stop();
    }
    // Clients from the other hosts, with the passwords initdb's rules ask of loopback clients.
    const hba = path.join(primaryDir, 'pg_hba.conf');
    fs.appendFileSync(hba, `host all all ${SUBNET}.0/24 password\nhost replication all ${SUBNET}.0/24 password\n`);

    const primaryHost = this.host('pg-primary');
    const common = ['-c', 'max_connections=200', '-c', 'shared_buffers=128MB'];
    this.primary = await startScriptServer(POSTGRES_SERVER, [primaryDir, String(PG_PORT), JSON.stringify(['-c', `listen_addresses=${primaryHost.address}`, ...common])], { netns: primaryHost.netns });
    log(`pg-primary: Postgres on ${primaryHost.address}:${PG_PORT}, ${this.catalogue.products.toLocaleString('en-US')} products in ${this.databaseName}`);

    const replicaHost = this.host('pg-replica');
    const replicaDir = path.join(this.dir, 'replica');
    const settings = await baseBackup({
      primaryUrl: this.databaseUrl(primaryHost, 'postgres'), source: primaryDir, target: replicaDir,
      upstream: { host: '127.0.0.1', port: RELAY_TO_PRIMARY_PORT }, slot: 'topology_replica',
    });
    this.relay = await startScriptServer(DELAY_RELAY, [JSON.stringify([
      { listen: `${replicaHost.address}:${PG_PORT}`, target: `127.0.0.1:${STANDBY_PORT}`, egress: 'toClient' },
      { listen: `127.0.0.1:${RELAY_TO_PRIMARY_PORT}`, target: `${primaryHost.address}:${PG_PORT}`, egress: 'toTarget' },
    ])], { netns: replicaHost.netns });
    this.standby = await startScriptServer(POSTGRES_SERVER, [replicaDir, String(STANDBY_PORT),
      JSON.stringify(['-c', 'listen_addresses=127.0.0.1', '-c', 'hot_standby_feedback=on', ...common, ...settings.flatMap((s) => ['-c', s])])], { netns: replicaHost.netns });
    this.netem = this.network.netemDelay(replicaHost, 1) && this.network.netemDelay(replicaHost, 0);
    log(`pg-replica: streaming replica on ${replicaHost.address}:${PG_PORT} (latency by ${this.netem ? 'tc netem' : 'a userspace relay: this kernel has no tc netem'})`);

    const redisHost = this.host('redis');
    const [command, args] = commandIn({ netns: redisHost.netns, host: redisHost.address, port: REDIS_PORT },
      ['redis-server', '--port', String(REDIS_PORT), '--bind', redisHost.address, '--save', '', '--appendonly', 'no', '--protected-mode', 'no']);
    this.redis = spawn(command, args, { stdio: 'ignore' });
    await waitListening(redisHost.address, REDIS_PORT, 'Redis');
    log(`redis: ${redisHost.address}:${REDIS_PORT}`);

    for (const name of API_HOSTS) await this.startApiHost(name);
    log(`api1-3: the API on ${API_HOSTS.map((name) => `${this.host(name).address}:${API_PORT}`).join(', ')} (Redis cache, reads on the replica)`);

    const lb = this.host('lb');
    this.nginx = await startNginx(API_HOSTS.map((name) => `${this.host(name).address}:${API_PORT}`), {
      placement: { netns: lb.netns, host: lb.address, port: NGINX_PORT }, dir: this.dir,
    });
    log(`lb: nginx on ${this.nginx.url}`);
  }

  private placement(name: ApiHost): Placement {
    const host = this.host(name);
    return { netns: host.netns, host: host.address, port: API_PORT };
  }

  /** Starts (or starts again) the API on an API host. */
  async startApiHost(name: ApiHost): Promise<void> {
    this.apis.set(name, await startApi({
      databaseUrl: this.primaryUrl, workers: 1, cache: 'redis',
      redisUrl: `redis://${this.host('redis').address}:${REDIS_PORT}`,
      // Every host shares the cache and the write position.
      cachePrefix: `topology${process.pid}:`,
      env: { DATABASE_REPLICA_URLS: this.databaseUrl(this.host('pg-replica')) },
      placement: this.placement(name),
    }));
  }

  /** The host dies: every process on it is killed at once (SIGKILL), mid-request. */
  async killApiHost(name: ApiHost): Promise<void> {
    const api = this.apis.get(name);
    this.apis.delete(name);
    for (const pid of pidsIn(this.host(name).netns)) process.kill(pid, 'SIGKILL');
    await api?.stop();
  }

  /** The host can no longer reach Redis, nor Redis it: packets dropped both ways. */
  cutFromRedis(name: ApiHost): void {
    this.network.disconnect(this.host(name), this.host('redis'));
    this.network.disconnect(this.host('redis'), this.host(name));
  }

  reconnectToRedis(name: ApiHost): void {
    this.network.reconnect(this.host(name), this.host('redis'));
    this.network.reconnect(this.host('redis'), this.host(name));
  }

  /** Delays everything the replica's host sends by `ms` (0: no delay). */
  async delayReplica(ms: number): Promise<void> {
    if (this.netem) {
      if (!this.network.netemDelay(this.host('pg-replica'), ms)) throw new BenchError(`tc netem delay ${ms}ms failed on pg-replica`);
      return;
    }
    this.relay!.send(`delay ${ms}`);
  }

  private tearingDown?: Promise<void>;

  /** Stops everything, deletes the namespaces, the bridge and the temporary directory (once, however often it is called). */
  teardown(): Promise<void> {
    this.tearingDown ??= this.tearDown();
    return this.tearingDown;
  }

  private async tearDown(): Promise<void> {
    const steps: (() => Promise<unknown> | undefined)[] = [
      () => this.nginx?.stop(),
      ...[...this.apis.values()].map((api) => () => api.stop()),
      () => this.standby?.stop(),
      () => this.relay?.stop(),
      () => this.primary?.stop(),
      () => { this.redis?.kill('SIGTERM'); return undefined; },
    ];
    for (const step of steps) await Promise.resolve(step()).catch((error: unknown) => this.log(`tear-down: ${(error as Error).message}`));
    this.apis.clear();
    for (const host of this.network.hosts.values()) await killAllIn(host.netns);
    await this.network.destroy();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
