// A process that builds part of the topology (two hosts on the bridge, a
// process running in one of them, a temporary directory) with the topology
// bench's interrupt handler, prints {"ready": true} and waits to be killed:
// test/bench/topology.test.ts checks that a SIGTERM tears it all down and that
// what a SIGKILL leaves is swept by the next run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Network, onInterrupt, topologyTempDir } from '../../bench/lib/topology/network.ts';

const network = new Network();
const dir = topologyTempDir();
onInterrupt(async () => {
  await network.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
}, () => {});
network.create();
const host = network.addHost('sleeper', 41);
network.addHost('other', 42);
spawn('ip', ['netns', 'exec', host.netns, 'sleep', '600'], { stdio: 'ignore', detached: true }).unref();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
setInterval(() => {}, 60_000);
