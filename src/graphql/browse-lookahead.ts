// Whether the field being resolved selects a path of fields below it (e.g.
// search's edges { snippet }), through fragments: a statement computes the
// extra column only when the query will show it.
import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

function selects(selectionSet: SelectionSetNode | undefined, path: readonly string[], fragments: Record<string, FragmentDefinitionNode>): boolean {
  if (!selectionSet || path.length === 0) return path.length === 0;
  const [name, ...rest] = path;
  return selectionSet.selections.some((selection) => {
    if (selection.kind === 'Field') return selection.name.value === name && selects(selection.selectionSet, rest, fragments);
    if (selection.kind === 'InlineFragment') return selects(selection.selectionSet, path, fragments);
    return selects(fragments[selection.name.value]?.selectionSet, path, fragments);
  });
}

/** True when the current field's selection (fragments included) reaches `path`, e.g. ['edges', 'snippet']. */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  return info.fieldNodes.some((node) => selects(node.selectionSet, path, info.fragments));
}
