// `npm start` as a new user runs it: the first start on an empty data
// directory prints what the README says it prints, and npm stops the server
// with its embedded Postgres when npm itself gets SIGTERM (a process manager,
// `kill`) or SIGINT, leaving no process behind and the ports free.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README_PORT = 4000;
const README_PG_PORT = 54329;
const MIGRATION_PLACEHOLDER = '… one "applied migration" line for each of the other migrations in prisma/migrations/';

/** The README's block after its first-start marker. */
function readmeBlock(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const match = /<!-- first-start:[^>]*-->\n```\n([\s\S]*?)\n```/.exec(readme);
  if (!match) throw new Error('README.md has no first-start block');
  return match[1]!.split('\n');
}

/** Timings vary from run to run, and the function files' list grows: the first name stands for it. Everything else is compared as printed. */
function normaliseTimings(line: string): string {
  return line
    .replace(/ loaded in [\d.]+ s:/, ' loaded in <seconds> s:')
    .replace(/^(applied \d+ function definition\(s\) from prisma\/functions: [\w]+), .*$/, '$1, …');
}

/** What a start printed, as the README shows it: its paths, ports and one line for the migrations after the first. */
function asReadmeShowsIt(output: string, dataDir: string, port: number, pgPort: number): { lines: string[]; migrations: number } {
  const lines: string[] = [];
  let migrations = 0;
  for (const raw of output.split('\n')) {
    // npm's header ("> catalogue-api@0.1.0 start", "> node src/main.ts"), blank lines and Fastify's JSON log lines.
    if (raw === '' || raw.startsWith('> ') || raw.startsWith('{')) continue;
    const line = raw
      .replaceAll(dataDir, '/…/.data')
      .replace(`127.0.0.1:${pgPort}`, `127.0.0.1:${README_PG_PORT}`)
      .replace(`localhost:${port}/`, `localhost:${README_PORT}/`);
    if (line.startsWith('applied migration ')) {
      migrations += 1;
      if (migrations === 2) lines.push(MIGRATION_PLACEHOLDER);
      if (migrations >= 2) continue;
    }
    lines.push(line);
  }
  return { lines, migrations };
}

interface NpmStart {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<void>;
  port: number;
  pgPort: number;
}

/** `npm start` in the repository with its own data directory and ports, the rest of the configuration at its defaults. */
async function npmStart(dataDir: string): Promise<NpmStart> {
  const port = await freePort();
  const pgPort = await freePort();
  const env: NodeJS.ProcessEnv = {};
  // Only what npm and node need from this environment: no DATABASE_URL, REDIS_URL, LOG_LEVEL, NODE_ENV of the test run.
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TERM']) if (process.env[name] !== undefined) env[name] = process.env[name];
  Object.assign(env, { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), HOST: '127.0.0.1' });
  // npm keeps a compile cache in the temporary folder, to outlive the run; a test leaves nothing there.
  env.NODE_DISABLE_COMPILE_CACHE = '1';
  // detached: its own process group, so that cleanup can reach every process of it whatever the test saw.
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(npm);
  let output = '';
  npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  return { npm, output: () => output, exited, port, pgPort };
}

async function until(condition: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every live descendant of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function command(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '(gone)';
  }
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Sends `signal` to npm alone, as a process manager does, and checks that everything npm started is gone and the ports are free. */
async function stopsCleanly(start: NpmStart, signal: NodeJS.Signals): Promise<void> {
  const processes = descendants(start.npm.pid!);
  const named = processes.map((pid) => `${pid} ${command(pid)}`);
  expect(named.some((line) => line.includes('src/main.ts')), named.join('\n')).toBe(true);
  expect(named.some((line) => /bin\/postgres /.test(line)), named.join('\n')).toBe(true);
  process.kill(start.npm.pid!, signal);
  await start.exited;
  await until(() => processes.every((pid) => !alive(pid)), 20_000, () => `these to exit after npm did:\n${processes.filter(alive).map((pid) => `${pid} ${command(pid)}`).join('\n')}`);
  expect(await portInUse(start.port)).toBe(false);
  expect(await portInUse(start.pgPort)).toBe(false);
  expect(start.output()).toMatch(/\bstopped\b/);
}

const started: ChildProcess[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-npm-start-'));

afterAll(() => {
  // Also when a test failed half-way: nothing of ours keeps running, nothing stays on disk.
  for (const npm of started) {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints on a first start what the README shows, and stops with its embedded Postgres on SIGTERM to npm', async () => {
    const start = await npmStart(dataDir);
    await until(() => start.output().includes('GraphQL API on'), 180_000, () => `the first start:\n${start.output()}`);
    // Stopped first, so that a README out of date does not leave a server behind for the next test.
    await stopsCleanly(start, 'SIGTERM');
    const { lines, migrations } = asReadmeShowsIt(start.output(), dataDir, start.port, start.pgPort);
    const printed = lines.slice(0, lines.findIndex((line) => line.startsWith('GraphQL API on')) + 1);
    expect(printed.map(normaliseTimings)).toEqual(readmeBlock().map(normaliseTimings));
    const migrationDirectories = fs.readdirSync(path.join(ROOT, 'prisma/migrations')).filter((name) => fs.existsSync(path.join(ROOT, 'prisma/migrations', name, 'migration.sql')));
    expect(migrations).toBe(migrationDirectories.length);
    const functionFiles = fs.readdirSync(path.join(ROOT, 'prisma/functions')).filter((name) => name.endsWith('.sql'));
    expect(start.output()).toContain(`applied ${functionFiles.length} function definition(s) from prisma/functions: `);
  }, 240_000);

  it('starts again on the same data and stops with its embedded Postgres on SIGINT to npm', async () => {
    const start = await npmStart(dataDir);
    await until(() => start.output().includes('GraphQL API on'), 60_000, () => `a later start:\n${start.output()}`);
    expect(start.output()).not.toContain('applied migration');
    await stopsCleanly(start, 'SIGINT');
  }, 120_000);

  it('the README comparison can fail: a changed count or a missing line is seen', () => {
    const printed = ['applied migration a', 'applied migration b', 'sample catalogue loaded in 3.1 s: 9 products'].join('\n');
    const { lines, migrations } = asReadmeShowsIt(printed, '/x', 1, 2);
    expect(migrations).toBe(2);
    expect(lines).toEqual(['applied migration a', MIGRATION_PLACEHOLDER, 'sample catalogue loaded in 3.1 s: 9 products']);
    expect(lines.map(normaliseTimings)).not.toEqual(readmeBlock().map(normaliseTimings));
  });
});
