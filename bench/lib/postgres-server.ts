// Runs Postgres on a prepared data directory (a streaming standby made by
// ./base-backup.ts, or a primary initialised elsewhere) in its own process,
// like test/support/pg-server.ts: prints one JSON line {"ready": true} when it
// accepts connections (read-only ones, for a standby); on SIGTERM (or when the
// parent's end of stdin closes) shuts Postgres down fast and exits. Leaves the
// directory in place, so the server can be started again.
import { spawn } from 'node:child_process';
import { postgresBinary, postgresUserIds } from './postgres-binaries.ts';

const [dataDir, port, flags] = process.argv.slice(2) as [string, string, string];
const server = spawn(postgresBinary('postgres'), ['-D', dataDir, '-p', port, ...(JSON.parse(flags) as string[])], {
  ...postgresUserIds(),
  stdio: ['ignore', 'ignore', 'pipe'],
});
let log = '';
server.stderr!.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  if (log.length < 100_000) log += text;
  if (/ready to accept (read-only )?connections/.test(text)) process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
});
let stopping = false;
server.once('exit', (code) => {
  if (!stopping) process.stderr.write(`Postgres on ${dataDir} exited with ${code}:\n${log}`);
  process.exit(stopping ? 0 : 1);
});
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.kill('SIGINT'); // fast shutdown; the exit handler above ends this process
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
