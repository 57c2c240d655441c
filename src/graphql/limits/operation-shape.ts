// Depth, aliases and directives of the operation a request runs, counted the
// way graphql-armor counts them, with its fragments expanded where they are
// spread. Each fragment is measured once and its measures reused at every
// spread, so a document whose fragments spread each other many times over
// (exponential when expanded) is still measured in linear time.
import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { fragmentsByName } from '../fragments.ts';

export interface OperationShape {
  /** Deepest chain of nested fields; a leaf field counts as a level: `{ a { b } }` is 2. */
  depth: number;
  /** Aliased fields, each spread of a fragment counting the fragment's aliases again. */
  aliases: number;
  /** Directive uses anywhere in the operation, fragments expanded likewise. */
  directives: number;
}

const NOTHING: OperationShape = { depth: 0, aliases: 0, directives: 0 };

/**
 * Introspection's schema query nests `ofType` about ten levels deep; like
 * graphql-armor, its depth is not counted (so IDEs keep working wherever
 * introspection is enabled; where it is not, it is refused before this).
 */
const UNMEASURED_DEPTH = '__schema';

/** Measured once per operation: src/graphql/prepared-operations.ts keeps the shape. */
export function operationShape(document: DocumentNode, operation: OperationDefinitionNode): OperationShape {
  const fragments = fragmentsByName(document);
  const measured = new Map<string, OperationShape>();

  function fragmentShape(name: string): OperationShape {
    let shape = measured.get(name);
    if (shape) return shape;
    // Validation has already refused fragment cycles; the placeholder keeps a cycle finite regardless.
    measured.set(name, NOTHING);
    const fragment = fragments.get(name);
    if (!fragment) return NOTHING;
    const body = selectionsShape(fragment.selectionSet);
    shape = { ...body, directives: body.directives + (fragment.directives?.length ?? 0) };
    measured.set(name, shape);
    return shape;
  }

  function selectionsShape(selectionSet: SelectionSetNode): OperationShape {
    let depth = 0;
    let aliases = 0;
    let directives = 0;
    for (const selection of selectionSet.selections) {
      directives += selection.directives?.length ?? 0;
      let inner: OperationShape;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases++;
        inner = selection.selectionSet ? selectionsShape(selection.selectionSet) : NOTHING;
        if (selection.name.value !== UNMEASURED_DEPTH) depth = Math.max(depth, 1 + inner.depth);
      } else {
        inner = selection.kind === Kind.INLINE_FRAGMENT ? selectionsShape(selection.selectionSet) : fragmentShape(selection.name.value);
        depth = Math.max(depth, inner.depth);
      }
      aliases += inner.aliases;
      directives += inner.directives;
    }
    return { depth, aliases, directives };
  }

  const body = selectionsShape(operation.selectionSet);
  const onVariables = (operation.variableDefinitions ?? []).reduce((n, v) => n + (v.directives?.length ?? 0), 0);
  return { ...body, directives: body.directives + (operation.directives?.length ?? 0) + onVariables };
}
