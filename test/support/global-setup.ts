// Starts one throwaway embedded Postgres for the whole test run, unless
// DATABASE_URL points at a server to use instead. Each test file then creates
// its own database on it (see ./db.ts), so files never see each other's rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../src/util/free-port.ts';
import { startServerProcess } from './server-process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('serverUrl', process.env.DATABASE_URL);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-test-pg-'));
  const server = await startServerProcess<{ url: string }>(path.join(import.meta.dirname, 'pg-server.ts'), [dir, String(await freePort())]);
  project.provide('serverUrl', server.ready.url);
  return () => server.stop();
}
