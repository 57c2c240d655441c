// The k6 scripts send operations cut out of k6/operations.graphql by a small
// splitter (k6 has no GraphQL parser). Each cut must be exactly the operation
// graphql-js (and so codegen) sees in that file.
import fs from 'node:fs';
import path from 'node:path';
import { parse, print, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationsByName } from '../../k6/lib/operation-text.ts';

const FILE = path.resolve(import.meta.dirname, '../../k6/operations.graphql');

describe('k6 operation splitter', () => {
  it('cuts every operation of k6/operations.graphql exactly as graphql-js parses it', () => {
    const text = fs.readFileSync(FILE, 'utf8');
    const declared = parse(text).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    const cut = operationsByName(text);
    expect([...cut.keys()].sort()).toEqual(declared.map((d) => d.name?.value).sort());
    for (const definition of declared) {
      const sent = cut.get(definition.name!.value)!;
      expect(print(parse(sent))).toBe(print({ kind: 'Document', definitions: [definition] } as never));
    }
  });

  it('ignores comments and braces in them, and rejects anonymous operations', () => {
    const cut = operationsByName('# a { comment\nquery A { x }\n\n# }\nmutation B($v: Int) { y(v: $v) { z } }\n');
    expect(Object.fromEntries(cut)).toEqual({ A: 'query A { x }', B: 'mutation B($v: Int) { y(v: $v) { z } }' });
    expect(() => operationsByName('{ x }')).toThrow('not a named operation');
  });
});
