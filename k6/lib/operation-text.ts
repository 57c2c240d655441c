// Splits a GraphQL document into its operations, by name, without a GraphQL
// parser (k6 has none): top-level definitions end where their braces balance.
// Pure, so the vitest suite checks it against graphql-js on k6/operations.graphql.

export function operationsByName(document: string): Map<string, string> {
  const operations = new Map<string, string>();
  const text = document.replace(/#[^\n]*/g, '');
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (start === -1 && /\S/.test(char!)) start = i;
    if (char === '{') depth++;
    if (char === '}' && --depth === 0) {
      const definition = text.slice(start, i + 1);
      const name = /^(?:query|mutation|subscription)\s+(\w+)/.exec(definition)?.[1];
      if (name === undefined) throw new Error(`not a named operation: ${definition.slice(0, 60)}`);
      operations.set(name, definition);
      start = -1;
    }
  }
  return operations;
}
