// Starts one throwaway embedded Postgres for the whole test run, unless
// DATABASE_URL points at a server to use instead. Each test file then creates
// its own database on it (see ./db.ts), so files never see each other's rows.
//
// The run gets a temporary folder of its own (TMPDIR for everything it
// starts, each test file a folder inside it: ./temp-check.ts). At the end
// whatever is left in it fails the run, and the folder is removed: a test run
// leaves nothing behind in the system's temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PostgresProcess } from './postgres-process.ts';
import { buildCatalogueTemplate, type CatalogueTemplate } from './catalogue-template.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    /** The run's temporary folder; each test file makes its own inside it. */
    testTempRoot: string;
    /** The default test catalogue, loaded once: test files copy it (./catalogue-template.ts). */
    catalogueTemplate: CatalogueTemplate;
  }
}

/**
 * What a run left in its temporary folder: a line per entry, with what is
 * inside a folder. A test file's own folder left empty is not counted: a file
 * whose tests were all skipped (an on-demand measurement, a tool this machine
 * lacks) runs no hook, so its check (./temp-check.ts) never removed it.
 */
function leftBehind(root: string): string[] {
  const emptyFileFolder = (name: string) => name.startsWith('file-') && fs.statSync(path.join(root, name)).isDirectory() && fs.readdirSync(path.join(root, name)).length === 0;
  return fs.readdirSync(root).filter((name) => !emptyFileFolder(name)).map((name) => {
    const full = path.join(root, name);
    const inside = fs.statSync(full).isDirectory() ? fs.readdirSync(full).slice(0, 5) : [];
    return inside.length ? `${name}/ (${inside.join(', ')}${inside.length === 5 ? ', …' : ''})` : name;
  });
}

export default async function setup(project: TestProject) {
  const systemTemp = os.tmpdir();
  const root = fs.mkdtempSync(path.join(systemTemp, 'catalogue-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  project.provide('testTempRoot', root);
  let server: PostgresProcess | undefined;
  if (!process.env.DATABASE_URL) server = await PostgresProcess.start();
  const serverUrl = server?.url ?? process.env.DATABASE_URL!;
  project.provide('serverUrl', serverUrl);
  const template = await buildCatalogueTemplate(serverUrl);
  project.provide('catalogueTemplate', { database: template.database, manifest: template.manifest });
  return async () => {
    await template.drop().catch(() => {});
    await server?.dispose();
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = leftBehind(root);
    fs.rmSync(root, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`the test run left in its temporary folder (now removed): ${left.join('; ')}`);
  };
}
