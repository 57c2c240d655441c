// STAND-IN, replaced by the real cost estimator (being written on another
// branch with this same signature; the lead merges it). What an operation
// costs against the caller's rate-limit budget: here simply the number of
// fields it selects (fragments expanded, each spread counted where it is used),
// at least 1. It ignores list sizes, which the real estimator weighs.
import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export function operationCost(
  _schema: GraphQLSchema,
  document: DocumentNode,
  _variables?: Record<string, unknown> | null,
  operationName?: string | null,
): number {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return 1;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const count = (selectionSet: SelectionSetNode, visiting: Set<string>): number => {
    let fields = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        fields += 1 + (selection.selectionSet ? count(selection.selectionSet, visiting) : 0);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        fields += count(selection.selectionSet, visiting);
      } else {
        const fragment = fragments.get(selection.name.value);
        // A fragment cycle is a validation error; never loop on one.
        if (!fragment || visiting.has(selection.name.value)) continue;
        fields += count(fragment, new Set([...visiting, selection.name.value]));
      }
    }
    return fields;
  };
  return Math.max(1, count(operation.selectionSet, new Set()));
}
