// Cuts a GraphQL document into its operations, by name, each followed by the
// fragments it uses (directly or through other fragments), without a GraphQL
// parser (k6 has none): top-level definitions end where their braces balance.
// Pure, so the vitest suite checks it with graphql-js on k6/operations.graphql.

/** Named fragment spreads (`...Name`, not inline `... on Type`). */
function spreadNames(definition: string): string[] {
  return [...definition.matchAll(/\.\.\.\s*(?!on\b)([_A-Za-z]\w*)/g)].map((match) => match[1]!);
}

function definitions(document: string): string[] {
  const text = document.replace(/#[^\n]*/g, '');
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (start === -1 && /\S/.test(char)) start = i;
    if (char === '{') depth++;
    if (char === '}' && --depth === 0) {
      found.push(text.slice(start, i + 1));
      start = -1;
    }
  }
  return found;
}

export function operationsByName(document: string): Map<string, string> {
  const fragments = new Map<string, string>();
  const operations = new Map<string, string>();
  for (const definition of definitions(document)) {
    const [, kind, name] = /^(query|mutation|subscription|fragment)\s+(\w+)/.exec(definition) ?? [];
    if (name === undefined) throw new Error(`not a named operation or fragment: ${definition.slice(0, 60)}`);
    (kind === 'fragment' ? fragments : operations).set(name, definition);
  }
  const withFragments = new Map<string, string>();
  for (const [name, operation] of operations) {
    const used: string[] = [];
    const visit = (definition: string) => {
      for (const spread of spreadNames(definition)) {
        if (used.includes(spread)) continue;
        const fragment = fragments.get(spread);
        if (fragment === undefined) throw new Error(`operation ${name} uses fragment ${spread}, which the document does not define`);
        used.push(spread);
        visit(fragment);
      }
    };
    visit(operation);
    withFragments.set(name, [operation, ...used.map((fragment) => fragments.get(fragment))].join('\n\n'));
  }
  return withFragments;
}
