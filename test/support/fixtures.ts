// Writes a directory of six small legacy CSV files for a test. Each file gets
// its exact legacy header; pass only the data lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TABLES } from '../../src/etl/load/tables.ts';
import type { FileName } from '../../src/etl/generate/plan.ts';

export type FixtureFiles = Partial<Record<FileName, string[]>>;

export function writeFixture(files: FixtureFiles): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-fixture-'));
  for (const spec of TABLES) {
    const lines = files[spec.file] ?? [];
    fs.writeFileSync(path.join(dir, spec.fileName), [spec.header, ...lines].map((l) => `${l}\n`).join(''));
  }
  return dir;
}
