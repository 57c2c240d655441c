// A throwaway embedded Postgres in a child process (./pg-server.ts), started
// and stopped on demand: the whole test run's server (global-setup), or one
// a test stops to see what the API does when its database goes away.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/util/free-port.ts';

export interface PgProcess {
  /** postgres://… of the server's default database. */
  url: string;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
}

export async function startPgProcess(): Promise<PgProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-test-pg-'));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'pg-server.ts'), dir, String(await freePort())], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`test Postgres exited with ${code} before it was ready`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
