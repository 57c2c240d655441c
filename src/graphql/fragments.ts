// The fragment definitions of a document, by name: what the pre-execution
// checks (limits, cost) follow a spread to.
import { type DocumentNode, type FragmentDefinitionNode, Kind } from 'graphql';

export function fragmentsByName(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}
