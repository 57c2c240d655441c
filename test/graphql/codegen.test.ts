// Generated GraphQL types must match schema/ and the operations: if someone
// edits the SDL or an operation without running `npm run codegen`, this fails.
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../codegen.ts';

describe('graphql-codegen output', () => {
  it('is up to date with schema/ and the operations (run `npm run codegen` if this fails)', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const outputs = (await generate({ ...config, silent: true }, false)) as { filename: string; content: string }[];
      expect(outputs.length).toBeGreaterThan(0);
      for (const output of outputs) {
        const committed = fs.readFileSync(path.resolve(root, output.filename), 'utf8');
        expect(committed, `${output.filename} is stale`).toBe(output.content);
      }
    } finally {
      process.chdir(cwd);
    }
  });
});
