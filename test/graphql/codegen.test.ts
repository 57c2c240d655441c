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

describe('k6 operations', () => {
  it('the nested-product load script sends exactly the ProductWithStyles operation of k6/operations.graphql', async () => {
    const { parse, print } = await import('graphql');
    const root = path.resolve(import.meta.dirname, '../..');
    const script = fs.readFileSync(path.join(root, 'k6/scenarios/graphql-product-styles.ts'), 'utf8');
    const sent = /const QUERY = `([^`]+)`/.exec(script)?.[1];
    expect(sent).toBeDefined();
    const declared = parse(fs.readFileSync(path.join(root, 'k6/operations.graphql'), 'utf8')).definitions
      .find((d) => d.kind === 'OperationDefinition' && d.name?.value === 'ProductWithStyles');
    expect(declared).toBeDefined();
    expect(print(parse(sent!))).toBe(print({ kind: 'Document', definitions: [declared!] } as never));
  });
});
