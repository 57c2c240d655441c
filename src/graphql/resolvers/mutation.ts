// Writes: validate, then the catalogue service (one transaction each).
import type { MutationResolvers } from '../../generated/graphql/resolvers.ts';
import { validateProductWrite } from '../../catalog/validation.ts';
import { parseId } from '../ids.ts';

export const Mutation: MutationResolvers = {
  createProduct: async (_root, { input }, { service }) => {
    const write = validateProductWrite(input, 'create');
    return service.createProduct(write as Parameters<typeof service.createProduct>[0]);
  },
  updateProduct: (_root, { id, input }, { service }) => service.updateProduct(parseId(id), validateProductWrite(input, 'update')),
  deleteProduct: async (_root, { id }, { service }) => {
    await service.deleteProduct(parseId(id));
    return id;
  },
};
