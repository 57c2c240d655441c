// selectsPath: what a page statement computes beyond the products' columns
// (style documents, snippets) follows what the query will show, through
// fragments, and not what @skip/@include leaves out.
import { type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectsPath } from '../../src/graphql/browse-lookahead.ts';

/** The info a resolver of the document's first root field gets (the parts selectsPath reads). */
function infoOf(source: string, variableValues: Record<string, unknown> = {}): GraphQLResolveInfo {
  const document = parse(source);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = Object.fromEntries(document.definitions
    .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
    .map((d) => [d.name.value, d]));
  return { fieldNodes: [operation.selectionSet.selections[0] as FieldNode], fragments, variableValues } as unknown as GraphQLResolveInfo;
}

const CARD = ['edges', 'node', 'defaultStyle'];

describe('selectsPath', () => {
  it.each([
    ['{ productConnection { edges { node { defaultStyle { id } } } } }', {}, true],
    ['{ productConnection { edges { node { id } } } }', {}, false],
    ['{ productConnection { edges { node { defaultStyle @skip(if: true) { id } } } } }', {}, false],
    ['{ productConnection { edges { node { defaultStyle @include(if: false) { id } } } } }', {}, false],
    ['query($show: Boolean!) { productConnection { edges { node { defaultStyle @include(if: $show) { id } } } } }', { show: false }, false],
    ['query($show: Boolean!) { productConnection { edges { node { defaultStyle @include(if: $show) { id } } } } }', { show: true }, true],
    ['query($hide: Boolean!) { productConnection { edges @skip(if: $hide) { node { defaultStyle { id } } } } }', { hide: true }, false],
    ['{ productConnection { edges { node { ...Card } } } } fragment Card on Product { defaultStyle { id } }', {}, true],
    ['{ productConnection { edges { node { ...Card @skip(if: true) } } } } fragment Card on Product { defaultStyle { id } }', {}, false],
    ['{ productConnection { edges { node { ... on Product @include(if: false) { defaultStyle { id } } } } } }', {}, false],
    // One selection left out, another of the same path kept: selected.
    ['{ productConnection { edges { node { defaultStyle @skip(if: true) { id } ... on Product { defaultStyle { name } } } } } }', {}, true],
  ] as const)('%s with %j: %s', (source, variables, expected) => {
    expect(selectsPath(infoOf(source, variables), CARD)).toBe(expected);
  });
});
