// Every test file gets a temporary folder of its own (TMPDIR, so os.tmpdir()
// and every process it starts use it) inside the run's (./global-setup.ts).
// After the file's own afterAll hooks, anything left in it fails the file,
// naming what was left, and the folder is removed: a test removes what it
// makes, also when it fails.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, inject } from 'vitest';

const dir = fs.mkdtempSync(path.join(inject('testTempRoot'), 'file-'));
const previous = process.env.TMPDIR;
process.env.TMPDIR = dir;

// Registered before the file's own hooks, so it runs after them (after hooks run in reverse order).
afterAll(() => {
  process.env.TMPDIR = previous;
  const left = fs.readdirSync(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) throw new Error(`this test file left in its temporary folder: ${left.join(', ')} (remove what a test makes, also when it fails)`);
});
