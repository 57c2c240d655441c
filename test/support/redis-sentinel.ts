// Redis with failover on loopback, from Debian's redis-server and
// redis-sentinel (.ci/run installs both): a master, a replica of it, and
// three Sentinels watching the master (quorum 2) that promote the replica
// when the master stops answering for SENTINEL_DOWN_AFTER_MS. Tests that need
// it never skip in CI: there, a missing binary is a failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../bench/lib/free-port.ts';
import { redisAvailable, startTestRedis, type TestRedis } from './redis.ts';

export const SENTINEL_MASTER = 'catalogue';
/** How long the master must be silent before a Sentinel thinks it down (then the quorum agrees, and one fails over). */
export const SENTINEL_DOWN_AFTER_MS = 500;

export function redisSentinelAvailable(): boolean {
  if (!redisAvailable()) return false;
  const found = spawnSync('redis-sentinel', ['--version']).status === 0;
  if (!found && process.env.CI) throw new Error('redis-sentinel is not installed; .ci/run must install it (tests that need Redis Sentinel never skip in CI)');
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 25 ms until it holds; throws `what` after `timeoutMs`. */
export async function until(what: string, done: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done().catch(() => false));) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(25);
  }
}

/** A client for checks (not the API's): one attempt per command, errors left to the caller. */
export function probe(port: number): Redis {
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => 200, lazyConnect: false });
  client.on('error', () => {});
  return client;
}

export interface SentinelRedis {
  /** The servers: [0] starts as the master, [1] as its replica. */
  servers: TestRedis[];
  sentinelPorts: number[];
  /** REDIS_SENTINELS for the API. */
  sentinelsSetting: string;
  /** The port the Sentinels name as the master now. */
  masterPort(): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinelRedis(): Promise<SentinelRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-sentinel-'));
  const sentinels: ChildProcess[] = [];
  const servers: TestRedis[] = [];
  const stop = async () => {
    await Promise.all(sentinels.map((child) => child.exitCode === null
      ? new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGKILL'); })
      : undefined));
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Each server in a directory of its own: a replica writes the master's snapshot there when it syncs.
    const serverDir = (name: string) => {
      fs.mkdirSync(path.join(dir, name));
      return path.join(dir, name);
    };
    servers.push(await startTestRedis(['--dir', serverDir('a')]));
    const master = servers[0]!;
    servers.push(await startTestRedis(['--dir', serverDir('b'), '--replicaof', '127.0.0.1', String(master.port)]));
    const replica = probe(servers[1]!.port);
    try {
      await until('the replica is in sync with the master', async () => /master_link_status:up/.test(await replica.info('replication')));
    } finally {
      replica.disconnect();
    }
    // The Sentinels start once the replica is attached, so the first INFO they send the master lists it.
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(dir, `sentinel-${i}.conf`);
      // Sentinel rewrites its configuration file as it learns (other Sentinels, replicas, epochs).
      fs.writeFileSync(conf, [
        `port ${port}`, 'bind 127.0.0.1', 'daemonize no', `dir ${dir}`,
        `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${SENTINEL_DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER} 1`, '',
      ].join('\n'));
      sentinels.push(spawn('redis-sentinel', [conf], { stdio: 'ignore' }));
      sentinelPorts.push(port);
    }
    const clients = sentinelPorts.map(probe);
    try {
      await until('every Sentinel knows the replica and the two other Sentinels, and the quorum is reachable', async () => {
        for (const client of clients) {
          const others = await client.call('SENTINEL', 'SENTINELS', SENTINEL_MASTER) as unknown[];
          const replicas = await client.call('SENTINEL', 'REPLICAS', SENTINEL_MASTER) as string[][];
          const flags = replicas.map((fields) => fields[fields.indexOf('flags') + 1]);
          if (others.length !== 2 || flags.length !== 1 || flags[0] !== 'slave') return false;
          if (!String(await client.call('SENTINEL', 'CKQUORUM', SENTINEL_MASTER)).startsWith('OK')) return false;
        }
        return true;
      });
    } finally {
      for (const client of clients) client.disconnect();
    }
    return {
      servers,
      sentinelPorts,
      sentinelsSetting: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      async masterPort() {
        const client = probe(sentinelPorts[0]!);
        try {
          const [, port] = await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER) as [string, string];
          return Number(port);
        } finally {
          client.disconnect();
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
