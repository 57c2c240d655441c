// Starts one throwaway embedded Postgres for the whole test run, unless
// DATABASE_URL points at a server to use instead. Each test file then creates
// its own database on it (see ./db.ts), so files never see each other's rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { spawn } from 'node:child_process';
import { freePort } from '../../src/util/free-port.ts';

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
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'pg-server.ts'), dir, String(await freePort())], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`test Postgres exited with ${code} before it was ready`)));
  });
  project.provide('serverUrl', url);
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
}
