// Configuration is read in one place: src/config.ts. Anything else in src/
// that reads process.env is a setting nobody validates or documents.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the environment', () => {
  it('is read by src/config.ts only', () => {
    const readers = sources(SRC)
      .filter((file) => file !== path.join(SRC, 'config.ts'))
      .filter((file) => /process\.env\b(?!\s*[,}])/.test(fs.readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '')))
      .map((file) => path.relative(SRC, file));
    expect(readers).toEqual([]);
  });
});
