// Cache-Control for GraphQL responses, derived from the @cacheControl hints in
// schema/*.graphql: a query's max-age is the smallest hint among the fields it
// selects (a field's own hint, else its object type's); an object field with
// neither makes the result uncacheable, a scalar field inherits its parent's.
// Computed once per document from the document alone (no execution needed,
// so it works the same with graphql-jit). Mutations are never cacheable.
import { type ASTNode, type DocumentNode, type GraphQLSchema, Kind, TypeInfo, getNamedType, isCompositeType, parse, visit, visitWithTypeInfo } from 'graphql';

export interface CachePolicy {
  maxAge: number;
  scope: 'PUBLIC' | 'PRIVATE';
}

function hintOf(node: ASTNode | null | undefined): { maxAge?: number; scope?: 'PUBLIC' | 'PRIVATE' } | undefined {
  if (!node || !('directives' in node)) return undefined;
  const directive = node.directives?.find((d) => d.name.value === 'cacheControl');
  if (!directive) return undefined;
  const hint: { maxAge?: number; scope?: 'PUBLIC' | 'PRIVATE' } = {};
  for (const argument of directive.arguments ?? []) {
    if (argument.name.value === 'maxAge' && argument.value.kind === Kind.INT) hint.maxAge = Number(argument.value.value);
    if (argument.name.value === 'scope' && argument.value.kind === Kind.ENUM) hint.scope = argument.value.value as 'PUBLIC' | 'PRIVATE';
  }
  return hint;
}

export function cachePolicy(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CachePolicy {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName));
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== 'query') return { maxAge: 0, scope: 'PUBLIC' };
  let maxAge = Number.POSITIVE_INFINITY;
  let scope: CachePolicy['scope'] = 'PUBLIC';
  const typeInfo = new TypeInfo(schema);
  visit(document, visitWithTypeInfo(typeInfo, {
    Field() {
      const field = typeInfo.getFieldDef();
      if (!field || field.name.startsWith('__')) return;
      const type = getNamedType(field.type);
      const hint = hintOf(field.astNode) ?? (isCompositeType(type) ? hintOf(type.astNode) : undefined);
      if (hint?.scope === 'PRIVATE') scope = 'PRIVATE';
      if (hint?.maxAge !== undefined) maxAge = Math.min(maxAge, hint.maxAge);
      else if (isCompositeType(type)) maxAge = 0;
    },
  }));
  return { maxAge: Number.isFinite(maxAge) ? maxAge : 0, scope };
}

/** The max-age the hints allow a query's answer (seconds), from its text. */
export function maxAgeOf(schema: GraphQLSchema, query: string): number {
  return cachePolicy(schema, parse(query), undefined).maxAge;
}
