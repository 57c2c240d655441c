// Whether the field being resolved selects a path of fields below it (e.g.
// search's edges { snippet }), through fragments: a statement computes the
// extra column only when the query will show it. A selection that @skip or
// @include leaves out (with the request's variables) does not count.
import {
  type FieldNode, type FragmentDefinitionNode, type FragmentSpreadNode, getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective,
  type GraphQLResolveInfo, type InlineFragmentNode, type SelectionSetNode,
} from 'graphql';

type Variables = GraphQLResolveInfo['variableValues'];

/** False when @skip(if: true) or @include(if: false) leaves the selection out, as execution will. */
function included(node: FieldNode | InlineFragmentNode | FragmentSpreadNode, variables: Variables): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

function selects(selectionSet: SelectionSetNode | undefined, path: readonly string[], fragments: Record<string, FragmentDefinitionNode>, variables: Variables): boolean {
  if (!selectionSet || path.length === 0) return path.length === 0;
  const [name, ...rest] = path;
  return selectionSet.selections.some((selection) => {
    if (!included(selection, variables)) return false;
    if (selection.kind === 'Field') return selection.name.value === name && selects(selection.selectionSet, rest, fragments, variables);
    if (selection.kind === 'InlineFragment') return selects(selection.selectionSet, path, fragments, variables);
    return selects(fragments[selection.name.value]?.selectionSet, path, fragments, variables);
  });
}

/** True when the current field's selection (fragments included, skipped parts not) reaches `path`, e.g. ['edges', 'snippet']. */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  return info.fieldNodes.some((node) => selects(node.selectionSet, path, info.fragments, info.variableValues));
}
