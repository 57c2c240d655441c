// `_entities` takes representations as the `_Any` scalar: any JSON at all.
// @apollo/subgraph throws plain errors for one that is not an object, has no
// __typename or names a type that is no entity, which would be answered as
// internal server errors (and logged as bugs). A router never sends those;
// a client probing the subgraph gets a BAD_USER_INPUT naming the entry instead,
// for an id that is not one too (checked here, for the whole call: graphql-jit
// drops, rather than nulls, a list entry whose resolution fails).
import { type GraphQLFieldResolver, type GraphQLSchema, isUnionType } from 'graphql';
import { badInput } from '../errors.ts';
import { parseId } from '../ids.ts';

export function checkRepresentations(schema: GraphQLSchema): void {
  const entities = schema.getQueryType()?.getFields()._entities;
  const union = schema.getType('_Entity');
  if (!entities?.resolve || !isUnionType(union)) throw new Error('not a subgraph schema: no _entities or _Entity');
  const names = union.getTypes().map((type) => type.name);
  const resolve: GraphQLFieldResolver<unknown, unknown> = entities.resolve;
  entities.resolve = (root, args: { representations?: unknown[] }, context, info) => {
    (args.representations ?? []).forEach((representation, i) => {
      const typename = typeof representation === 'object' && representation !== null ? (representation as { __typename?: unknown }).__typename : undefined;
      if (typeof typename !== 'string' || !names.includes(typename)) {
        throw badInput(`representations[${i}] must be an object whose __typename is one of ${names.join(', ')} (got ${JSON.stringify(representation)?.slice(0, 100)})`, 'representations');
      }
      // Every entity's key is its id.
      const id = (representation as { id?: unknown }).id;
      parseId(typeof id === 'string' ? id : JSON.stringify(id) ?? 'undefined', `representations[${i}].id`);
    });
    return resolve(root, args, context, info);
  };
}
