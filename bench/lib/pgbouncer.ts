// A real PgBouncer in transaction mode on loopback, in front of Postgres
// servers of a test or a benchmark (Debian's package: 1.18 here, before named
// prepared statements were supported in transaction mode; .ci/run installs
// it). Each database it offers is an alias for one database on one server, so
// one PgBouncer can front a primary and its standby.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { systemUserIds } from './system-user.ts';

/** Where Debian's package puts it (not on a user's PATH). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** The URL of an alias: `url(alias)` with the user and password of the database it fronts. */
  url(alias: string): string;
  /** SHOW STATS of the admin console: per alias, the totals since start (queries, transactions). */
  stats(): Promise<Map<string, { queries: number; transactions: number }>>;
  /** What it logged (its errors say why a client was refused). */
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** alias -> the postgres:// URL of the database it stands for. */
  databases: Record<string, string>;
  /** Server connections per alias and user: fewer than the API's pool, so clients share them. */
  poolSize: number;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const entries = Object.entries(options.databases).map(([alias, url]) => {
    const target = new URL(url);
    return { alias, target, line: `${alias} = host=${target.hostname === 'localhost' ? '127.0.0.1' : target.hostname} port=${target.port} dbname=${decodeURIComponent(target.pathname.slice(1))}` };
  });
  // Clients are trusted on loopback; PgBouncer logs in to Postgres with the password in auth_file.
  const users = new Map(entries.map(({ target }) => [decodeURIComponent(target.username), decodeURIComponent(target.password)]));
  const admin = [...users.keys()][0]!;
  fs.writeFileSync(path.join(dir, 'userlist.txt'), [...users].map(([user, password]) => `"${user}" "${password}"`).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), [
    '[databases]', ...entries.map((entry) => entry.line), '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1', `listen_port = ${port}`, 'unix_socket_dir =',
    'auth_type = trust', `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'pool_mode = transaction', `default_pool_size = ${options.poolSize}`, 'max_client_conn = 500',
    `admin_users = ${admin}`, `logfile = ${path.join(dir, 'pgbouncer.log')}`, `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
    // Totals in SHOW STATS are brought up to date this often.
    'stats_period = 1', '',
  ].join('\n'));
  // PgBouncer refuses to run as root: as root it runs as the postgres user (-u), which must read its files.
  const ids = systemUserIds('postgres');
  const asUser = ids.uid === undefined ? [] : ['-u', 'postgres'];
  if (ids.uid !== undefined && ids.gid !== undefined) {
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) fs.chownSync(path.join(dir, file), ids.uid, ids.gid);
  }
  const child: ChildProcess = spawn(PGBOUNCER, [...asUser, path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const log = () => { try { return fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8'); } catch { return ''; } };
  for (let i = 0; i < 100 && child.exitCode === null && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await listening(port))) {
    child.kill('SIGKILL');
    throw new Error(`pgbouncer did not start:\n${log()}`);
  }
  const urlOf = (alias: string) => {
    const entry = entries.find((e) => e.alias === alias);
    if (!entry) throw new Error(`no PgBouncer alias ${alias}`);
    const url = new URL(entry.target.toString());
    url.hostname = '127.0.0.1';
    url.port = String(port);
    url.pathname = `/${alias}`;
    url.search = '';
    return url.toString();
  };
  return {
    port,
    url: urlOf,
    log,
    async stats() {
      // The admin console speaks the simple protocol only: a query without parameters.
      const url = new URL(urlOf(entries[0]!.alias));
      url.pathname = '/pgbouncer';
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const { rows } = await client.query<{ database: string; total_query_count: string; total_xact_count: string }>('SHOW STATS');
        return new Map(rows.map((row) => [row.database, { queries: Number(row.total_query_count), transactions: Number(row.total_xact_count) }]));
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT'); // immediate shutdown
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
