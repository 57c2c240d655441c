// Peeks at the sub-selection of the field being resolved, so a resolver can
// fetch what its children will need in the same statement.
import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** The Product fields that show its styles. */
export const STYLE_FIELDS: ReadonlySet<string> = new Set(['styles', 'defaultStyle']);

function selects(selectionSet: SelectionSetNode | undefined, names: ReadonlySet<string>, fragments: Record<string, FragmentDefinitionNode>, seen: Set<string>): boolean {
  if (!selectionSet) return false;
  for (const selection of selectionSet.selections) {
    if (selection.kind === 'Field') {
      if (names.has(selection.name.value)) return true;
    } else if (selection.kind === 'InlineFragment') {
      if (selects(selection.selectionSet, names, fragments, seen)) return true;
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      if (selects(fragments[selection.name.value]?.selectionSet, names, fragments, seen)) return true;
    }
  }
  return false;
}

/** True when the current field's selection (fragments included) asks for any of `names`. */
export function selectsAny(info: GraphQLResolveInfo, names: ReadonlySet<string>): boolean {
  return info.fieldNodes.some((node) => selects(node.selectionSet, names, info.fragments, new Set()));
}
