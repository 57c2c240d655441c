// The k6 scripts send operations cut out of k6/operations.graphql by a small
// splitter (k6 has no GraphQL parser). Each cut must be the operation
// graphql-js (and so codegen) sees in that file, with exactly the fragments
// it needs: a valid document against the schema (unknown and unused fragments
// are validation errors).
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, print, validate, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationsByName } from '../../k6/lib/operation-text.ts';
import { readTypeDefs } from '../../src/graphql/schema.ts';

const FILE = path.resolve(import.meta.dirname, '../../k6/operations.graphql');

describe('k6 operation splitter', () => {
  it('cuts every operation of k6/operations.graphql, with the fragments it uses, into a valid document', () => {
    const text = fs.readFileSync(FILE, 'utf8');
    const declared = parse(text).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    const cut = operationsByName(text);
    expect([...cut.keys()].sort()).toEqual(declared.map((d) => d.name?.value).sort());
    const schema = buildSchema(readTypeDefs());
    for (const definition of declared) {
      const sent = parse(cut.get(definition.name!.value)!);
      expect(validate(schema, sent).map((e) => e.message), definition.name!.value).toEqual([]);
      const operation = sent.definitions.find((d) => d.kind === 'OperationDefinition');
      expect(print(operation!)).toBe(print(definition));
    }
  });

  it('follows fragments through fragments, once each, and ignores comments and inline fragments', () => {
    const cut = operationsByName([
      '# a { comment',
      'fragment B on T { b ...C }',
      'query Q { x { ...B ... on T { y } ...B } }',
      'fragment C on T { c }',
      'fragment Unused on T { u }',
      'mutation M($v: Int) { m(v: $v) { z } }',
    ].join('\n'));
    expect(Object.fromEntries(cut)).toEqual({
      Q: 'query Q { x { ...B ... on T { y } ...B } }\n\nfragment B on T { b ...C }\n\nfragment C on T { c }',
      M: 'mutation M($v: Int) { m(v: $v) { z } }',
    });
  });

  it('rejects anonymous operations and missing fragments', () => {
    expect(() => operationsByName('{ x }')).toThrow('not a named operation');
    expect(() => operationsByName('query Q { ...Missing }')).toThrow('operation Q uses fragment Missing');
  });
});
