// A primary and a real streaming standby of it, for tests of read replicas.
//
// The primary is a throwaway embedded Postgres (./pg-server.ts; wal_level is
// `replica` by default, and initdb's pg_hba.conf lets replication connections
// in from 127.0.0.1 with a password). The standby's data directory is a base
// backup taken by hand (bench/lib/base-backup.ts), and it runs in
// bench/lib/postgres-server.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { queryOnce } from '../../src/db/pool/query-once.ts';
import { baseBackup, onPort } from '../../bench/lib/base-backup.ts';
import { freePort } from '../../bench/lib/free-port.ts';
import { type ScriptServer, startScriptServer } from '../../bench/lib/script-server.ts';

const SLOT = 'test_standby';
const POSTGRES_SERVER = path.resolve(import.meta.dirname, '../../bench/lib/postgres-server.ts');

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

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-replicas-'));
  const primary = await startScriptServer<{ url: string }>(path.join(import.meta.dirname, 'pg-server.ts'), [dir, String(await freePort())]);
  let standby: ScriptServer<{ ready: true }> | undefined;
  try {
    const standbyDir = path.join(dir, 'standby');
    const settings = await baseBackup({
      primaryUrl: primary.ready.url, source: path.join(dir, 'data'), target: standbyDir,
      upstream: { host: '127.0.0.1', port: Number(new URL(primary.ready.url).port) }, slot: SLOT,
    });
    const port = await freePort();
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'shared_buffers=32MB', '-c', 'hot_standby_feedback=on', ...settings.flatMap((s) => ['-c', s])];
    const startStandby = async () => {
      standby = await startScriptServer(POSTGRES_SERVER, [standbyDir, String(port), JSON.stringify(flags)]);
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
        await primary.stop();
        fs.rmSync(dir, { recursive: true, force: true }); // the standby's data is in it
      },
    };
  } catch (error) {
    await standby?.stop();
    await primary.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
