// A throwaway embedded Postgres in a child process (./pg-server.ts), started
// and stopped on demand: the whole test run's server (global-setup), or one
// a test stops to see what the API does when its database goes away.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/util/free-port.ts';
import { startServerProcess } from './server-process.ts';

export interface PgProcess {
  /** postgres://… of the server's default database. */
  url: string;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
}

export async function startPgProcess(): Promise<PgProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-test-pg-'));
  const server = await startServerProcess<{ url: string }>(path.join(import.meta.dirname, 'pg-server.ts'), [dir, String(await freePort())]);
  return { url: server.ready.url, stop: () => server.stop() };
}
