// The IDE's example operations (src/graphql/ide.ts EXAMPLE_QUERY) are valid
// against the schema: a visitor's first run must not be an error.
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_QUERY } from '../../src/graphql/ide.ts';
import { readTypeDefs } from '../../src/graphql/schema.ts';

describe('the IDE example operations', () => {
  it('are named operations valid against schema/', () => {
    const document = parse(EXAMPLE_QUERY);
    expect(document.definitions.length).toBeGreaterThanOrEqual(2);
    for (const definition of document.definitions) expect(definition.kind === 'OperationDefinition' && definition.name?.value).toBeTruthy();
    expect(validate(buildSchema(readTypeDefs()), document).map((error) => error.message)).toEqual([]);
  });
});
