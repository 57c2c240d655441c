// Starts one throwaway embedded Postgres for the whole test run, unless
// DATABASE_URL points at a server to use instead. Each test file then creates
// its own database on it (see ./db.ts), so files never see each other's rows.
import type { TestProject } from 'vitest/node';
import { PostgresProcess } from './postgres-process.ts';

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
  const server = await PostgresProcess.start();
  project.provide('serverUrl', server.url);
  return () => server.dispose();
}
