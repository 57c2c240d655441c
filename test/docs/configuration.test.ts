// Every variable src/config.ts reads is in docs/configuration.md, and the
// table names no variable the code does not read.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_DATABASE_URL } from '../../src/config.ts';
import { configVariables } from '../support/config-variables.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const doc = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');

/** Internal: set by the primary for its workers, not by operators. */
const INTERNAL = new Set([WORKER_DATABASE_URL]);

describe('docs/configuration.md', () => {
  const read = configVariables();
  const documented = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)`(?: \/ `([A-Z][A-Z0-9_]+)`)? \|/gm)].flatMap((match) => [match[1]!, ...(match[2] ? [match[2]] : [])]));

  it('documents every variable the configuration reads', () => {
    expect(read.size).toBeGreaterThan(50);
    expect([...read].filter((name) => !documented.has(name) && !INTERNAL.has(name))).toEqual([]);
  });

  it('documents no variable the configuration does not read', () => {
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });
});
